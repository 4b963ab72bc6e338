import { describe, expect, it } from 'vitest';
import {
  chooseTransport,
  loadsThroughAws,
  TRANSPORT_KINDS,
  TRANSPORTS,
  isSageMakerTransport as throughAws,
} from '../../../src/load/transport/transports.js';
import type { TransportKind } from '../../../src/load/types.js';
import { isSageMakerTransport, type Transport, transportSchema } from '../../../src/model/artifacts.js';

// The table's kinds are the artifact schema's, no more and no fewer (a compile-time check).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const kindsMatch: Same<TransportKind, Transport> = true;

describe('the transport table', () => {
  it('has one row per kind the artifacts record, in the order they are listed', () => {
    expect(kindsMatch).toBe(true);
    expect([...TRANSPORT_KINDS]).toEqual([...transportSchema.options]);
  });

  it('decides "goes through AWS" as the artifacts read it, and only endpoint-less kinds need a target', () => {
    for (const kind of TRANSPORT_KINDS) {
      expect(throughAws(kind)).toBe(isSageMakerTransport(kind));
      expect(TRANSPORTS[kind].needsTarget).toBe(!TRANSPORTS[kind].throughAws);
    }
  });

  it('chooses http with a target, else response-stream, and refuses a disagreeing pair', () => {
    expect(chooseTransport('qmax', {})).toEqual({ kind: 'response-stream', targetUrl: null });
    expect(chooseTransport('qmax', { target: 'http://127.0.0.1:8080' })).toEqual({
      kind: 'http',
      targetUrl: 'http://127.0.0.1:8080/invocations',
    });
    expect(() => chooseTransport('qmax', { transport: 'http' })).toThrow(/measures a container directly/);
    expect(() => chooseTransport('goodput', { transport: 'sdk', target: 'http://h:1' })).toThrow(
      /goodput: give either a target/,
    );
  });

  it('needs AWS clients only for a live load', () => {
    expect(loadsThroughAws({})).toBe(true);
    expect(loadsThroughAws({ transport: 'sdk' })).toBe(true);
    expect(loadsThroughAws({ transport: 'http' })).toBe(false);
    expect(loadsThroughAws({ target: 'http://h:1' })).toBe(false);
    expect(loadsThroughAws({ dryRun: true })).toBe(false);
  });
});
