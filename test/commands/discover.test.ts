/**
 * Discovery of a plan's measurements in artifacts-dir: a ttotal whose T_total is only a lower
 * bound (its probe never recovered) never becomes a plan's input silently. It is skipped with a
 * note, unless asked for, and a complete one of the same fingerprint is preferred even when older.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseTtotal, discoverMeasurements } from '../../src/commands/discover.js';
import { type TtotalArtifact, writeArtifact } from '../../src/model/index.js';
import { kokoroMeasurements, kokoroModel } from '../infra/fixtures.js';

function workspace(ttotals: Array<{ name: string; lowerBound: boolean; measuredAt: string }>): string {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-discover-'));
  const { qmax } = kokoroMeasurements();
  writeArtifact('qmax', join(dir, 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json'), qmax);
  for (const t of ttotals) {
    const ttotal = kokoroMeasurements({ lowerBoundTtotal: t.lowerBound }).ttotal as TtotalArtifact;
    ttotal.measured_at = t.measuredAt;
    ttotal.run_id = t.name;
    writeArtifact('ttotal', join(dir, `ttotal-kokoro-82m-${t.name}.json`), ttotal);
  }
  return dir;
}

describe('discovering the ttotal a plan uses', () => {
  it('skips a newer lower-bound ttotal for an older complete one, and notes why', () => {
    const dir = workspace([
      { name: 'complete', lowerBound: false, measuredAt: '2026-08-01T00:00:00.000Z' },
      { name: 'unrecovered', lowerBound: true, measuredAt: '2026-08-02T00:00:00.000Z' },
    ]);
    const found = discoverMeasurements(dir, 'kokoro-82m', kokoroModel());
    expect(found.ttotal?.artifact.run_id).toBe('complete');
    expect(found.notes.join('\n')).toMatch(
      /skipped .*ttotal-kokoro-82m-unrecovered\.json: its T_total 260\.248496 s is only a LOWER BOUND/,
    );
  });

  it('finds no ttotal when the only one is a lower bound (the plan step then refuses, saying so)', () => {
    const dir = workspace([
      { name: 'unrecovered', lowerBound: true, measuredAt: '2026-08-02T00:00:00.000Z' },
    ]);
    const found = discoverMeasurements(dir, 'kokoro-82m', kokoroModel());
    expect(found.qmax).not.toBeNull();
    expect(found.ttotal).toBeNull();
    expect(found.notes.some((n) => n.includes('LOWER BOUND'))).toBe(true);
  });

  it('takes the lower bound only when asked (allow-lower-bound)', () => {
    const dir = workspace([
      { name: 'unrecovered', lowerBound: true, measuredAt: '2026-08-02T00:00:00.000Z' },
    ]);
    const found = discoverMeasurements(dir, 'kokoro-82m', kokoroModel(), { allowLowerBound: true });
    expect(found.ttotal?.artifact.run_id).toBe('unrecovered');
    const qmax = found.qmax;
    if (!qmax) throw new Error('no qmax discovered');
    expect(chooseTtotal(dir, 'kokoro-82m', qmax, [], false)).toBeNull();
    expect(chooseTtotal(dir, 'kokoro-82m', qmax, [], true)?.artifact.run_id).toBe('unrecovered');
  });
});
