/** The freeze claim tags: what a run writes, what another run reads back, and how they are ordered. */
import { describe, expect, it } from 'vitest';
import {
  claimIsFresh,
  claimOrder,
  claimsFromTags,
  claimTag,
  type FreezeClaim,
} from '../../src/model/freeze-claim.js';

const T = Date.parse('2025-06-01T09:00:00.000Z');
const claim = (over: Partial<FreezeClaim>): FreezeClaim => ({
  runId: 'run-a',
  phase: 'claim',
  startMs: T,
  beatMs: T,
  host: 'runner-1',
  ...over,
});

describe('freeze claims', () => {
  it('round-trips through a tag whose value only uses characters SageMaker tags allow (a host name with others is reduced)', () => {
    const tags = claimTag(claim({ host: 'build host #3 (eu)' }));
    expect(tags).toEqual({
      'scalegate:freeze:run-a':
        'v1 claim 2025-06-01T09:00:00.000Z 2025-06-01T09:00:00.000Z build-host--3--eu-',
    });
    for (const value of Object.values(tags)) expect(value).toMatch(/^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u);
    expect(claimsFromTags(tags).claims).toEqual([claim({ host: 'build-host--3--eu-' })]);
  });

  it('orders by start, then run id (the arbitration), and never arbitrates a value it cannot read', () => {
    const tags = {
      ...claimTag(claim({ runId: 'run-b', startMs: T + 1 })),
      ...claimTag(claim({ runId: 'run-c', startMs: T })),
      ...claimTag(claim({ runId: 'run-a', startMs: T })),
      'scalegate:freeze:forged': 'v1 claim yesterday now host',
      'scalegate:freeze:bad id!': 'v1 claim 2025-06-01T09:00:00.000Z 2025-06-01T09:00:00.000Z h',
      other: 'x',
    };
    const { claims, unreadable } = claimsFromTags(tags);
    expect(claims.map((c) => c.runId)).toEqual(['run-a', 'run-c', 'run-b']);
    expect(unreadable.sort()).toEqual(['scalegate:freeze:bad id!', 'scalegate:freeze:forged']);
    expect(
      claimOrder(claim({ runId: 'run-z', startMs: T }), claim({ runId: 'run-a', startMs: T + 1 })),
    ).toBeLessThan(0);
  });

  it('a claim is stale after three missed heartbeats, fresh before', () => {
    const c = claim({ beatMs: T });
    expect(claimIsFresh(c, T + 89_999, 30_000)).toBe(true);
    expect(claimIsFresh(c, T + 90_000, 30_000)).toBe(false);
    expect(claimIsFresh(c, T + 2_999, 1_000)).toBe(true);
    expect(claimIsFresh(c, T + 3_000, 1_000)).toBe(false);
  });

  it('refuses a run id that cannot name a tag key', () => {
    expect(() => claimTag(claim({ runId: 'a b' }))).toThrow(/cannot name a freeze claim tag/);
  });
});
