/**
 * The arithmetic (docs/design.md, "The arithmetic"), one function per derived value.
 * Pure: numbers in, numbers out.
 */
import { type ThroughputPoint, throughputAt } from '../stats/surge.js';

/** T_plan = T_total + policy detection lag: how long a surge must be absorbed. */
export const planningHorizonS = (tTotalS: number, policyLagS: number): number => tTotalS + policyLagS;

export interface ScaleBand {
  /** h = k - 1 */
  h: number;
  /** Scale out here: (1 - h) * Q_max. */
  scaleOutConcurrency: number;
  /** Scale in here: (1 - 2h) * Q_max. */
  scaleInConcurrency: number;
}

export function scaleBand(qMax: number, surgeRatio: number): ScaleBand {
  const h = surgeRatio - 1;
  return { h, scaleOutConcurrency: (1 - h) * qMax, scaleInConcurrency: (1 - 2 * h) * qMax };
}

/**
 * Smallest fleet that can scale in safely: removing one of N instances multiplies the
 * survivors' load by N/(N-1); that must stay within r = C_scale_max / C_scale_min, or the
 * scale-in itself triggers a scale-out. null when the band is degenerate (r <= 1).
 */
export function smallestSafeMinimum(scaleOutConcurrency: number, scaleInConcurrency: number): number | null {
  if (scaleInConcurrency <= 0) return null;
  const r = scaleOutConcurrency / scaleInConcurrency;
  if (r <= 1) return null;
  // Rounded to 9 digits so that 1.5 / 0.5 stays exactly 3, not 3.0000000000000004.
  return Math.max(2, Math.ceil(Number((r / (r - 1)).toFixed(9))));
}

/** W_max = max(0, SLO - S_p95): the queueing wait a request can afford. */
export const waitBudgetS = (sloMs: number, serviceP95S: number): number =>
  Math.max(0, sloMs / 1000 - serviceP95S);

export const scaleOutCooldownS = (tPlanS: number): number =>
  Math.floor(Math.max(10, Math.min(30, tPlanS / 2)));
export const scaleInCooldownS = (tPlanS: number): number => Math.floor(Math.max(300, 3 * tPlanS));

export interface RatioPoint {
  concurrency: number;
  ratio: number;
}

/** The usable rung nearest C_scale_max that carries a ratio; ties go to the higher rung. */
export function ratioNearest(points: readonly RatioPoint[], concurrency: number): RatioPoint | null {
  let best: RatioPoint | null = null;
  for (const point of points) {
    if (best === null) {
      best = point;
      continue;
    }
    const distance = Math.abs(point.concurrency - concurrency);
    const bestDistance = Math.abs(best.concurrency - concurrency);
    if (distance < bestDistance || (distance === bestDistance && point.concurrency > best.concurrency))
      best = point;
  }
  return best;
}

/** Instances needed to serve `load` at the scaling target: by throughput (rps) or by streams. */
export function instancesFor(
  load: { unit: 'rps' | 'streams'; value: number },
  xTargetRps: number,
  scaleOutConcurrency: number,
): number {
  if (load.value <= 0) return 0;
  const perInstance = load.unit === 'rps' ? xTargetRps : scaleOutConcurrency;
  if (perInstance <= 0) return Number.POSITIVE_INFINITY;
  return Math.ceil(Number((load.value / perInstance).toFixed(9)));
}

/**
 * The naive estimate `rps * S_mean / C_scale_max` treats concurrency as throughput: it is the
 * fleet of servers with unlimited parallelism. Printed only to explain the fleet_sizing finding.
 */
export const naiveInstances = (peakRps: number, serviceMeanS: number, scaleOutConcurrency: number): number =>
  Math.ceil((peakRps * serviceMeanS) / scaleOutConcurrency);

export const throughputAtTarget = (curve: readonly ThroughputPoint[], scaleOutConcurrency: number): number =>
  throughputAt(curve, scaleOutConcurrency);

/** Rounds for presentation and artifacts: values that deploy must not carry float noise. */
export const round = (value: number, digits: number): number => Number(value.toFixed(digits));
