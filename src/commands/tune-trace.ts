/**
 * Where `scalegate tune` gets its traffic: a trace file (`--trace`, src/model/trace.ts) or a
 * built-in shape (`--shape`, src/sim/shapes.ts), as the simulator's arrivals plus the reference
 * the tune artifact records (docs/traces.md). The one place the command reads a trace.
 */
import { opt } from '../model/errors.js';
import { readTraceFile, type TraceSummary } from '../model/trace.js';
import { shapeTrace, simArrivalsOf } from '../sim/shapes.js';
import type { SimArrivals } from '../sim/types.js';

export type TraceSource = { kind: 'file'; file: string } | { kind: 'shape'; spec: string };

export interface LoadedTrace {
  arrivals: SimArrivals;
  /** The trace's reference; the tune artifact adds the requests the simulation drew. */
  ref: TraceSummary;
}

export type TraceLoader = (source: TraceSource) => LoadedTrace;

export const loadTuneTrace: TraceLoader = (source) => {
  const trace =
    source.kind === 'file'
      ? readTraceFile(source.file, { flag: opt('trace') })
      : shapeTrace(source.spec, '--shape');
  return { arrivals: simArrivalsOf(trace), ref: trace.ref };
};
