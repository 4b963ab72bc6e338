/**
 * One goodput rung simulated as the product runs it, over a member of the service class
 * (src/stats/service-class.ts): Poisson arrivals from an empty server, the settle discarded,
 * windows of intended send time, looks at the decision's spans, each taken a little after its
 * span ends with every request still in flight then counted as a miss (as the live rung does),
 * and the rung ending at its first decisive look. Pure and seeded.
 */
import type { OpenLoopDecisionSettings, WindowedSamples } from './open-loop-decision.js';
import { decideOpenLoopSequential, type SequentialDecision } from './open-loop-sequential.js';
import { type ServiceModel, type ServiceSamples, simulateService } from './service-class.js';

export interface SimulatedGoodputRung {
  rate: number;
  holdS: number;
  settleS: number;
  sloMs: number;
  seed: number;
  /** Histogram window, ms (default 1000). */
  windowMs?: number;
  queueLimit?: number;
  decision?: Omit<OpenLoopDecisionSettings, 'sloMs'>;
}

/** How long after a look's span the live rung looks (requests older than this still in flight are misses). */
export const lookLagMs = (sloMs: number, windowMs: number): number => Math.max(2 * sloMs, windowMs);

/**
 * The windows of [settleS, settleS + spanS) as seen at `lookAtMs` (ms from the schedule start):
 * answered samples with their latency, overflows and requests still in flight as misses, L from
 * the in-system time so far.
 */
export function windowedAt(
  run: ServiceSamples,
  spec: { settleS: number; spanS: number; windowMs: number; lookAtMs: number },
): WindowedSamples {
  const { windowMs } = spec;
  const first = Math.ceil((spec.settleS * 1000) / windowMs);
  const last = Math.floor(((spec.settleS + spec.spanS) * 1000) / windowMs);
  const counts: number[] = [];
  const misses: number[] = [];
  const starts: number[] = [];
  const values: number[] = [];
  let i = 0;
  const total = run.atMs.length;
  while (i < total && (run.atMs[i] as number) < first * windowMs) i++;
  let inSystemMs = 0;
  for (let w = first; w < last; w++) {
    starts.push(values.length);
    let c = 0;
    let m = 0;
    while (i < total && (run.atMs[i] as number) < (w + 1) * windowMs) {
      const at = run.atMs[i] as number;
      const t = run.ttfabMs[i] as number;
      if (!Number.isFinite(t)) m++;
      else if (at + t > spec.lookAtMs) {
        m++;
        inSystemMs += spec.lookAtMs - at;
      } else {
        c++;
        values.push(t);
        inSystemMs += t;
      }
      i++;
    }
    counts.push(c);
    misses.push(m);
  }
  starts.push(values.length);
  const seconds = ((last - first) * windowMs) / 1000;
  return {
    counts,
    misses,
    meanInSystem: seconds > 0 ? inSystemMs / 1000 / seconds : 0,
    windowS: windowMs / 1000,
    quantile: (a, b, q) => {
      const from = starts[a] as number;
      const to = starts[b] as number;
      if (to <= from) return null;
      return rangeQuantile(values, from, to, q);
    },
  };
}

let scratch = new Float64Array(1024);

/** The k-th smallest of scratch[0, n) (Hoare's selection; reorders scratch). */
function select(n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  const a = scratch;
  while (hi > lo) {
    const pivot = a[(lo + hi) >> 1] as number;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((a[i] as number) < pivot) i++;
      while ((a[j] as number) > pivot) j--;
      if (i <= j) {
        const t = a[i] as number;
        a[i] = a[j] as number;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k] as number;
  }
  return a[k] as number;
}

/** The q-quantile (linear interpolation, as quantileSorted) of values[from, to). */
export function rangeQuantile(values: readonly number[], from: number, to: number, q: number): number {
  const n = to - from;
  if (scratch.length < n) scratch = new Float64Array(n * 2);
  for (let i = 0; i < n; i++) scratch[i] = values[from + i] as number;
  if (q <= 0) return select(n, 0);
  if (q >= 1) return select(n, n - 1);
  const position = (n - 1) * q;
  const below = Math.floor(position);
  const fraction = position - below;
  const low = select(n, below);
  if (fraction === 0 || below + 1 >= n) return low;
  // The next order statistic: the smallest of what lies above `below` after the selection.
  let high = Number.POSITIVE_INFINITY;
  for (let i = below + 1; i < n; i++) if ((scratch[i] as number) < high) high = scratch[i] as number;
  return low + (high - low) * fraction;
}

/** A simulated rung over `model` (or over given samples), decided look by look. */
export function simulateGoodputRung(
  source: ServiceModel | ServiceSamples,
  spec: SimulatedGoodputRung,
): SequentialDecision {
  const windowMs = spec.windowMs ?? 1000;
  const run =
    'atMs' in source
      ? source
      : simulateService(source, {
          ratePerS: spec.rate,
          durationS: spec.holdS,
          seed: spec.seed,
          ...(spec.queueLimit !== undefined ? { queueLimit: spec.queueLimit } : {}),
        });
  const maxSpanS = spec.holdS - spec.settleS;
  const lag = lookLagMs(spec.sloMs, windowMs);
  return decideOpenLoopSequential(
    (spanS) =>
      windowedAt(run, {
        settleS: spec.settleS,
        spanS,
        windowMs,
        // The hold's last look sees every request finished (the rung drains before it is judged).
        lookAtMs: spanS >= maxSpanS ? Number.POSITIVE_INFINITY : (spec.settleS + spanS) * 1000 + lag,
      }),
    { sloMs: spec.sloMs, maxSpanS, ...spec.decision },
  );
}
