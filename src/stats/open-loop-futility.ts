/**
 * Futility by projection for an open-loop rung: from `FUTILITY_FROM_S` seconds of measuring on, a
 * rung whose interval straddles the SLO ends undecided when, narrowed to the hold's last look, it
 * would still straddle it. The projection keeps the centre (the rung's p95) and shrinks the
 * interval's width as 1 / sqrt(n) (the arrivals grow with the span), with the last look's alphas
 * and batches. It only ever ends a rung undecided: it spends no alpha, and cannot make a PASS. Pure.
 */
import { studentTQuantile } from './student-t.js';

/** The projection is taken from this span (s of measuring) on: a shorter window's spread is too noisy to project. */
export const FUTILITY_FROM_S = 120;

export interface StraddleProjection {
  /** ln p95 of the look. */
  centre: number;
  /** Standard error of ln p95 at the look. */
  se: number;
  /** The calibration factor on the upper end. */
  inflation: number;
  sloMs: number;
  /** Measure span of the look, s. */
  spanS: number;
  /** The hold's last look: its span and alphas. */
  last: { spanS: number; alphaPass: number; alphaFail: number };
  /** Batches at the look. */
  batches: number;
  /** Most batches a look may cut (the last look's b is at most this). */
  maxBatches: number;
}

/** The interval the last look would give if the p95 stayed where it is (ms). */
export function projectedInterval(p: StraddleProjection): { low: number; high: number } {
  const share = Math.min(1, p.spanS / p.last.spanS);
  const se = p.se * Math.sqrt(share);
  const b = Math.max(p.batches, Math.min(p.maxBatches, Math.floor(p.batches / share)));
  return {
    low: Math.exp(p.centre - studentTQuantile(1 - p.last.alphaFail, b - 1) * se),
    high: p.inflation * Math.exp(p.centre + studentTQuantile(1 - p.last.alphaPass, b - 1) * se),
  };
}

/** The projected last-look interval still holds the SLO: the rung cannot be decided by its hold. */
export function stillStraddles(p: StraddleProjection): boolean {
  const { low, high } = projectedInterval(p);
  return low <= p.sloMs && high > p.sloMs;
}
