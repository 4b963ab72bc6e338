/**
 * Where the lambda_max ladder starts when no `--start-rate` is given: a scout of short Poisson
 * steps, `SCOUT_STEP_S` seconds each, doubling from the first rate until one step's p95 TTFAB from
 * the intended send time (every arrival without audio at +infinity) is above the SLO. The ladder
 * then starts at the highest step that was not, and measures the step that was as its first rate
 * above the start. Pure: the planner only sees what it is told.
 *
 * A scout step decides nothing. Its few seconds cannot show a p95 within or above the SLO with any
 * confidence; they only place the ladder's first rungs, each of which is still decided on its own
 * by the group-sequential rule, and lambda_max is still bracketed by a measured breach. A noisy
 * step costs rungs, never the guarantee: a step over the SLO by chance starts the ladder lower, one
 * within it by chance makes the first rate above the start fail sooner.
 */
import { roundRate } from './goodput-ladder.js';

/** Seconds of schedule per scout step. */
export const SCOUT_STEP_S = 5;
/** Each step's rate over the last. */
export const SCOUT_GROWTH = 2;
/** At most this many steps (1/s doubled 16 times is 65536/s). */
export const MAX_SCOUT_STEPS = 16;

export interface ScoutStep {
  rate: number;
  /** Arrivals of the step. */
  offered: number;
  /** Arrivals answered with audio. */
  ok: number;
  /** p95 TTFAB from the intended send time, misses at +infinity (null: no arrival; Infinity: over 5 % misses). */
  p95Ms: number | null;
  /** The p95 is above the SLO. */
  over: boolean;
}

export interface ScoutOutcome {
  steps: ScoutStep[];
  /** Where the ladder starts: the highest step not over the SLO (the first rate when every step was). */
  startRate: number;
  /** The lowest step over the SLO (null: none up to the highest rate). */
  overRate: number | null;
}

/** One scout step from its answered TTFABs (ms, from the intended send time) and its arrivals. */
export function scoutStep(
  rate: number,
  sloMs: number,
  ttfabMs: readonly number[],
  offered: number,
): ScoutStep {
  const ok = ttfabMs.length;
  if (offered === 0) return { rate, offered, ok, p95Ms: null, over: false };
  const rank = Math.ceil(0.95 * offered);
  let p95Ms: number;
  if (rank > ok) p95Ms = Number.POSITIVE_INFINITY;
  else p95Ms = [...ttfabMs].sort((a, b) => a - b)[rank - 1] as number;
  return { rate, offered, ok, p95Ms, over: p95Ms > sloMs };
}

export class GoodputScout {
  private readonly steps: ScoutStep[] = [];

  constructor(private readonly settings: { firstRate: number; maxRate: number }) {
    if (!(settings.firstRate > 0 && settings.maxRate >= settings.firstRate)) {
      throw new Error('the scout needs 0 < firstRate <= maxRate');
    }
  }

  /** The next step's rate, or null when the scout is done. */
  next(): number | null {
    const last = this.steps[this.steps.length - 1];
    if (!last) return roundRate(this.settings.firstRate);
    if (last.over || last.rate >= this.settings.maxRate || this.steps.length >= MAX_SCOUT_STEPS) return null;
    return roundRate(Math.min(this.settings.maxRate, last.rate * SCOUT_GROWTH));
  }

  record(step: ScoutStep): void {
    this.steps.push(step);
  }

  outcome(): ScoutOutcome {
    const within = this.steps.filter((s) => !s.over);
    const over = this.steps.find((s) => s.over);
    return {
      steps: [...this.steps],
      startRate:
        within.length > 0 ? Math.max(...within.map((s) => s.rate)) : roundRate(this.settings.firstRate),
      overRate: over ? over.rate : null,
    };
  }
}
