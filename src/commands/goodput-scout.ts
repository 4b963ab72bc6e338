/**
 * The scout of `scalegate goodput` (no --start-rate): short Poisson steps doubling from the first
 * rate until one step's p95 TTFAB is above the SLO (src/load/open/goodput-scout.ts decides where
 * the ladder starts). Each step is an open-loop schedule of its own, run by the same engine as a
 * rung; nothing is judged here and no step is a rung of the artifact (it records them as `scout`).
 */

import type { Clock } from '../load/clock.js';
import { GoodputScout, SCOUT_STEP_S, type ScoutOutcome, scoutStep } from '../load/open/goodput-scout.js';
import { runOpenRung } from '../load/open/open-rung.js';
import type { ProgressSink } from '../load/progress.js';
import type { Transport } from '../load/types.js';
import type { GoodputArtifact } from '../model/artifacts.js';
import type { ResolvedGoodput } from './goodput-input.js';

/** Seeds of the scout's schedules start here above the run's seed (rung i uses seed + i). */
export const SCOUT_SEED_OFFSET = 100_000;

export interface ScoutRun {
  resolved: ResolvedGoodput;
  transport: Transport;
  bodies: readonly Uint8Array[];
  signal: AbortSignal;
  progress: ProgressSink;
  loadClock?: Clock;
}

export async function runGoodputScout(run: ScoutRun): Promise<ScoutOutcome> {
  const { resolved } = run;
  const scout = new GoodputScout({ firstRate: resolved.startRate, maxRate: resolved.maxRate });
  for (let rate = scout.next(), i = 0; rate !== null; rate = scout.next(), i++) {
    if (run.signal.aborted) throw run.signal.reason;
    const measured = await runOpenRung({
      rate,
      seed: (resolved.seed + SCOUT_SEED_OFFSET + i) % 2 ** 31,
      holdS: SCOUT_STEP_S,
      settleS: 0,
      sloMs: resolved.sloMs,
      transport: run.transport,
      bodies: run.bodies,
      requestTimeoutMs: resolved.requestTimeoutS * 1000,
      maxOutstanding: resolved.maxOutstanding,
      startAtWall: new Date().toISOString(),
      windowMs: 1000,
      signal: run.signal,
      ...(run.loadClock ? { clock: run.loadClock } : {}),
      onHeartbeat: (beat) =>
        run.progress({
          type: 'load-heartbeat',
          label: `goodput scout ${i + 1} (${rate}/s)`,
          totalS: SCOUT_STEP_S,
          ...beat,
        }),
    });
    scout.record(scoutStep(rate, resolved.sloMs, measured.input.ttfabIntendedMs, measured.input.offered));
  }
  return scout.outcome();
}

/** The artifact's record of a scout (p95 null: none, or over 5 % of arrivals without audio). */
export function scoutRecord(o: ScoutOutcome): NonNullable<GoodputArtifact['scout']> {
  return {
    step_s: SCOUT_STEP_S,
    steps: o.steps.map((s) => ({
      rate_rps: s.rate,
      offered: s.offered,
      ok: s.ok,
      p95_ms: s.p95Ms !== null && Number.isFinite(s.p95Ms) ? Math.round(s.p95Ms * 1000) / 1000 : null,
      over: s.over,
    })),
    start_rps: o.startRate,
    over_rps: o.overRate,
  };
}
