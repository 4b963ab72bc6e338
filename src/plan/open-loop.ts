/**
 * The plan against random arrivals (`open_loop_headroom`): the policy holds each instance at
 * X_target, the closed-loop throughput at C_scale_max; real callers arrive at random, and the
 * goodput ladder measured lambda_max, the highest Poisson rate one instance holds inside the SLO.
 * When X_target exceeds it, random arrivals at the target break the SLO. Pure.
 */
import type { Finding, GoodputArtifact } from '../model/index.js';
import type { ThroughputPoint } from '../stats/surge.js';
import { remeasure } from './remeasure.js';

export interface OpenLoopFacts {
  model: string;
  /** null: no goodput artifact given (the finding is suppressed). */
  goodput: GoodputArtifact | null;
  goodputFile: string | null;
  xTargetRps: number;
  /** How to name the rate the plan sizes each instance for. @default X_target at C_scale_max */
  sizedRateLabel?: string | null;
  scaleOutConcurrency: number;
  /** The measured closed-loop throughput curve X(N) (usable rungs). */
  curve: readonly ThroughputPoint[];
  cwRatio: number | null;
  peakRps: number | null;
  peakInstances: number;
}

/**
 * The highest concurrency whose measured throughput (interpolated between usable rungs) is at
 * most `rps`: the concurrency target that keeps an instance at or below that rate. null when even
 * the lowest measured rung runs faster (no concurrency target can express it).
 */
export function concurrencyForThroughput(curve: readonly ThroughputPoint[], rps: number): number | null {
  const points = [...curve].sort((a, b) => a.concurrency - b.concurrency);
  const first = points[0];
  if (!first || first.rps > rps) return null;
  let best = first.concurrency;
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i] as ThroughputPoint;
    const b = points[i + 1] as ThroughputPoint;
    if (b.rps <= rps) {
      best = b.concurrency;
      continue;
    }
    if (a.rps <= rps) {
      // Crosses rps between a and b: the concurrency where the line reaches it.
      best = a.concurrency + ((rps - a.rps) * (b.concurrency - a.concurrency)) / (b.rps - a.rps);
    }
    break;
  }
  return best;
}

const fmt = (v: number, digits = 2): string => v.toFixed(digits);
const pct = (v: number): string => `${(v * 100).toFixed(1)} %`;

/** lambda_max with its provenance, as every output prints it. */
export function lambdaMaxProvenance(g: GoodputArtifact): string {
  if (g.lambda_max_rps === 0) return 'none: no Poisson rate held the SLO (measured)';
  return g.lambda_max_bracketed
    ? `measured, bracketed by a breach at ${g.breach_rate_rps} requests/s`
    : 'lower bound: no breach was measured above it';
}

/** Not evaluated: no goodput artifact (never a pass). */
export const suppressedOpenLoop = (model: string): Finding => ({
  name: 'open_loop_headroom',
  verdict: 'suppressed',
  detail:
    'no goodput artifact: the throughput the policy holds each instance at is not checked against random (Poisson) arrivals',
  fix: `measure lambda_max: ${remeasure('goodput', model)}, then plan with \`--goodput <goodput artifact>\``,
});

export function openLoopHeadroom(f: OpenLoopFacts): Finding {
  const g = f.goodput;
  if (g === null || g.lambda_max_rps === null) return suppressedOpenLoop(f.model);
  if (g.lambda_max_rps === 0 && !g.lambda_max_bracketed) {
    return {
      name: 'open_loop_headroom',
      verdict: 'suppressed',
      detail: `${f.goodputFile ?? 'the goodput artifact'} decided no rate (every rung undecided): lambda_max is unknown, so the target is not checked against random arrivals`,
      fix: `re-measure with longer rungs: ${remeasure('goodput', f.model, ' --hold-s <more>')}`,
    };
  }
  const lambda = g.lambda_max_rps;
  const source = `lambda_max ${fmt(lambda)} requests/s (${lambdaMaxProvenance(g)}, p95 TTFAB from the intended send time, ${f.goodputFile ?? 'goodput artifact'})`;
  const target =
    f.sizedRateLabel ??
    `X_target ${fmt(f.xTargetRps)} requests/s (measured closed-loop throughput at C_scale_max ${fmt(f.scaleOutConcurrency, 1)})`;
  if (lambda <= 0) {
    return {
      name: 'open_loop_headroom',
      verdict: 'warn',
      detail: `at the target, random arrivals break the SLO: no Poisson arrival rate held the SLO on one instance (${target})`,
      fix: `re-measure with lower rates (${remeasure('goodput', f.model, ' --start-rate <lower>')}), or a faster instance type or a looser SLO`,
    };
  }
  if (f.xTargetRps <= lambda) {
    return {
      name: 'open_loop_headroom',
      verdict: 'ok',
      detail: `${target} is ${pct(1 - f.xTargetRps / lambda)} below ${source}: random arrivals at the target stay inside the SLO`,
      fix: null,
    };
  }
  const over = f.xTargetRps / lambda - 1;
  const concurrency = concurrencyForThroughput(f.curve, lambda);
  const instances =
    f.peakRps !== null
      ? `${Math.ceil(f.peakRps / lambda)} instances at peak instead of ${f.peakInstances}`
      : null;
  const lowerBound = !g.lambda_max_bracketed
    ? ' (lambda_max is only a lower bound: the true headroom may be larger; measure higher rates to bracket it)'
    : g.search.resolution_met === false
      ? ` (the search did not reach its resolution${g.search.undecided_rates.length > 0 ? `, undecided at ${g.search.undecided_rates.join(', ')} requests/s` : ''}: the true lambda_max may lie anywhere below the breach at ${g.breach_rate_rps} requests/s; longer rungs (--hold-s) narrow it)`
      : '';
  const concurrencyFix =
    concurrency === null
      ? `no concurrency target can express it: even at the lowest measured concurrency this server runs above lambda_max`
      : `a concurrency target of ${fmt(concurrency)} in flight (where the measured throughput curve reaches lambda_max${f.cwRatio !== null ? `; ${fmt(concurrency * f.cwRatio)} in CloudWatch ConcurrentRequestsPerModel units` : ''}) leaves the measured headroom, instead of C_scale_max ${fmt(f.scaleOutConcurrency, 1)}`;
  return {
    name: 'open_loop_headroom',
    verdict: 'warn',
    detail: `at the target, random arrivals break the SLO: ${target} exceeds ${source} by ${pct(over)}${lowerBound}`,
    fix: `hold each instance at or below lambda_max: ${concurrencyFix}${instances ? `; sized by throughput that is ${instances}` : ''}`,
  };
}
