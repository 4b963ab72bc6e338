/**
 * CloudWatch metric-alarm evaluation, pure: datapoints in, state out. Shared by the local
 * SageMaker (src/local/autoscaling/alarms.ts) and the fleet simulator (src/sim).
 *
 * What AWS documents ("Evaluating an alarm" and "Configuring how CloudWatch alarms treat missing
 * data", CloudWatch User Guide) and this follows:
 * - Only completed periods count: the newest datapoint evaluated is the period that ended last.
 * - M out of N: the alarm is ALARM when at least DatapointsToAlarm (M) of the last
 *   EvaluationPeriods (N) datapoints breach.
 * - CloudWatch retrieves an *evaluation range* longer than N. When it holds at least N real
 *   datapoints, the N most recent real ones are evaluated and TreatMissingData plays no part.
 *   Otherwise every real datapoint is used and the missing ones are filled, as few as possible
 *   (N minus the real count), according to TreatMissingData:
 *     breaching -> bad, notBreaching -> good,
 *     ignore -> neither: the state only changes when the real data decides it, else it is kept,
 *     missing -> not considered: no real datapoint in the range at all is INSUFFICIENT_DATA,
 *               otherwise the real datapoints decide alone.
 *   The AWS table for a 3-of-3 alarm (range of 5, newest last) is reproduced by this:
 *   `0 - X - X` OK in every mode; `- - - - -` INSUFFICIENT_DATA / kept / ALARM / OK;
 *   `- - X - -` ALARM / kept / ALARM / OK.
 * Simplification: the range is N + 2 periods whatever the period (AWS varies it with the period
 * and resolution and does not publish the exact figure); the table above uses exactly that.
 */

/** One datapoint of a metric's statistic. */
export interface MetricPoint {
  /** Start of the period, aligned to a multiple of the period since the epoch. */
  timestampMs: number;
  value: number;
}

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
export const COMPARISONS = [
  'GreaterThanOrEqualToThreshold',
  'GreaterThanThreshold',
  'LessThanThreshold',
  'LessThanOrEqualToThreshold',
] as const;
export type Comparison = (typeof COMPARISONS)[number];
export const MISSING_DATA_MODES = ['missing', 'breaching', 'notBreaching', 'ignore'] as const;
export type MissingData = (typeof MISSING_DATA_MODES)[number];

/** Periods retrieved beyond EvaluationPeriods (see the module comment). */
export const EXTRA_RANGE_PERIODS = 2;

export interface EvaluationSpec {
  periodS: number;
  evaluationPeriods: number;
  datapointsToAlarm: number;
  threshold: number;
  comparison: Comparison;
  treatMissingData: MissingData;
}

export interface EvaluatedDatapoint {
  timestampMs: number;
  /** Undefined for a missing datapoint that was filled. */
  value: number | undefined;
  breaching: boolean;
}

export interface Evaluation {
  /** `undefined` means "keep the current state" (TreatMissingData ignore without enough data). */
  state: AlarmState | undefined;
  reason: string;
  /** The datapoints the decision used, newest first (filled ones carry no value). */
  evaluated: EvaluatedDatapoint[];
  /** Real datapoints in the whole evaluation range, newest first. */
  recent: MetricPoint[];
  queryStartMs: number;
  queryEndMs: number;
}

export function breaches(value: number, threshold: number, comparison: Comparison): boolean {
  switch (comparison) {
    case 'GreaterThanOrEqualToThreshold':
      return value >= threshold;
    case 'GreaterThanThreshold':
      return value > threshold;
    case 'LessThanThreshold':
      return value < threshold;
    case 'LessThanOrEqualToThreshold':
      return value <= threshold;
  }
}

export function isGreaterComparison(comparison: Comparison): boolean {
  return comparison === 'GreaterThanOrEqualToThreshold' || comparison === 'GreaterThanThreshold';
}

/** The query window: the evaluation range, ending where the last completed period ended. */
export function evaluationRange(spec: EvaluationSpec, nowMs: number): { startMs: number; endMs: number } {
  const periodMs = spec.periodS * 1000;
  const endMs = Math.floor(nowMs / periodMs) * periodMs;
  return { startMs: endMs - (spec.evaluationPeriods + EXTRA_RANGE_PERIODS) * periodMs, endMs };
}

export function evaluateAlarm(
  spec: EvaluationSpec,
  points: readonly MetricPoint[],
  nowMs: number,
): Evaluation {
  const { startMs, endMs } = evaluationRange(spec, nowMs);
  const n = spec.evaluationPeriods;
  const m = spec.datapointsToAlarm;
  const recent = points
    .filter((p) => p.timestampMs >= startMs && p.timestampMs < endMs && Number.isFinite(p.value))
    .sort((a, b) => b.timestampMs - a.timestampMs);

  const evaluated: EvaluatedDatapoint[] = recent.slice(0, n).map((p) => ({
    timestampMs: p.timestampMs,
    value: p.value,
    breaching: breaches(p.value, spec.threshold, spec.comparison),
  }));
  const realCount = evaluated.length;
  const fill = n - realCount;
  const realBreaching = evaluated.filter((d) => d.breaching).length;
  const realGood = realCount - realBreaching;
  if (fill > 0) {
    // Filled slots: the most recent periods that have no datapoint.
    const have = new Set(recent.map((p) => p.timestampMs));
    const periodMs = spec.periodS * 1000;
    let filled = 0;
    for (let t = endMs - periodMs; filled < fill && t >= startMs; t -= periodMs) {
      if (have.has(t)) continue;
      evaluated.push({ timestampMs: t, value: undefined, breaching: spec.treatMissingData === 'breaching' });
      filled++;
    }
    evaluated.sort((a, b) => b.timestampMs - a.timestampMs);
  }

  const base = { evaluated, recent, queryStartMs: startMs, queryEndMs: endMs };
  const cmp = describeComparison(spec.comparison);
  const thr = fmt(spec.threshold);
  const listed = `[${evaluated
    .filter((d) => d.value !== undefined)
    .map((d) => `${fmt(d.value as number)} (${fmtDate(d.timestampMs)})`)
    .join(', ')}]`;

  if (fill > 0 && realCount === 0) {
    // Nothing real in the whole evaluation range.
    switch (spec.treatMissingData) {
      case 'missing':
        return {
          ...base,
          state: 'INSUFFICIENT_DATA',
          reason: `Insufficient Data: ${plural(n, 'datapoint')} ${n === 1 ? 'was' : 'were'} unknown.`,
        };
      case 'ignore':
        return {
          ...base,
          state: undefined,
          reason: 'No datapoints in the evaluation range; missing data is ignored.',
        };
      case 'breaching':
        return {
          ...base,
          state: 'ALARM',
          reason: `Threshold Crossed: no datapoints were received for ${plural(n, 'period')} and ${plural(n, 'missing datapoint')} ${n === 1 ? 'was' : 'were'} treated as [Breaching].`,
        };
      case 'notBreaching':
        return {
          ...base,
          state: 'OK',
          reason: `Threshold Crossed: no datapoints were received for ${plural(n, 'period')} and ${plural(n, 'missing datapoint')} ${n === 1 ? 'was' : 'were'} treated as [NonBreaching].`,
        };
    }
  }

  let breachCount = realBreaching;
  let goodCount = realGood;
  let needed = m;
  if (fill > 0) {
    if (spec.treatMissingData === 'breaching') breachCount += fill;
    else if (spec.treatMissingData === 'notBreaching') goodCount += fill;
    else if (spec.treatMissingData === 'missing') needed = Math.min(m, realCount);
  }
  const filledNote =
    fill > 0 && (spec.treatMissingData === 'breaching' || spec.treatMissingData === 'notBreaching')
      ? ` and ${plural(fill, 'missing datapoint')} treated as [${spec.treatMissingData === 'breaching' ? 'Breaching' : 'NonBreaching'}]`
      : '';

  if (breachCount >= needed) {
    return {
      ...base,
      state: 'ALARM',
      reason: `Threshold Crossed: ${breachCount} out of the last ${n} datapoints ${listed}${filledNote} ${breachCount === 1 ? 'was' : 'were'} ${cmp} the threshold (${thr}) (minimum ${plural(m, 'datapoint')} for OK -> ALARM transition).`,
    };
  }
  // With ignore, OK needs the real data to rule ALARM out even if every filled slot breached.
  if (spec.treatMissingData === 'ignore' && fill > 0 && goodCount <= n - m) {
    return { ...base, state: undefined, reason: 'Not enough datapoints to decide; missing data is ignored.' };
  }
  return {
    ...base,
    state: 'OK',
    reason: `Threshold Crossed: ${goodCount} out of the last ${n} datapoints ${listed}${filledNote} ${goodCount === 1 ? 'was' : 'were'} not ${cmp} the threshold (${thr}) (minimum ${plural(n - m + 1, 'datapoint')} for ALARM -> OK transition).`,
  };
}

/**
 * Where an alarm is between evaluations: its state, and the end of the last period whose
 * completion already invoked that state's actions.
 */
export interface AlarmProgress {
  state: AlarmState;
  lastActionPeriodEndMs: number;
}

/** A new alarm: INSUFFICIENT_DATA, and no action invoked until a later transition or period. */
export function initialAlarmProgress(spec: EvaluationSpec, nowMs: number): AlarmProgress {
  return { state: 'INSUFFICIENT_DATA', lastActionPeriodEndMs: evaluationRange(spec, nowMs).endMs };
}

/**
 * One evaluation applied to an alarm (AWS, "Alarm actions"): a change of state invokes the new
 * state's actions; a state that persists through another completed period invokes them again
 * (what makes Auto Scaling actions repeat while the alarm stays in ALARM). `undefined` from the
 * evaluation (missing data ignored) keeps the state.
 */
export function stepAlarm(
  current: AlarmProgress,
  evaluation: Evaluation,
): { next: AlarmProgress; transitioned: boolean; invoke: boolean } {
  const periodEndMs = evaluation.queryEndMs;
  const state = evaluation.state ?? current.state;
  if (state !== current.state) {
    return { next: { state, lastActionPeriodEndMs: periodEndMs }, transitioned: true, invoke: true };
  }
  if (periodEndMs > current.lastActionPeriodEndMs) {
    return { next: { state, lastActionPeriodEndMs: periodEndMs }, transitioned: false, invoke: true };
  }
  return { next: current, transitioned: false, invoke: false };
}

function describeComparison(c: Comparison): string {
  switch (c) {
    case 'GreaterThanOrEqualToThreshold':
      return 'greater than or equal to';
    case 'GreaterThanThreshold':
      return 'greater than';
    case 'LessThanThreshold':
      return 'less than';
    case 'LessThanOrEqualToThreshold':
      return 'less than or equal to';
  }
}

const plural = (k: number, word: string): string => `${k} ${word}${k === 1 ? '' : 's'}`;
/** CloudWatch prints values with at least one decimal: 12 -> "12.0". */
const fmt = (v: number): string => (Number.isInteger(v) ? v.toFixed(1) : String(v));
/** CloudWatch's state reasons print times as dd/MM/yy HH:mm:ss (UTC). */
function fmtDate(ms: number): string {
  const d = new Date(ms);
  const p = (x: number) => String(x).padStart(2, '0');
  return `${p(d.getUTCDate())}/${p(d.getUTCMonth() + 1)}/${p(d.getUTCFullYear() % 100)} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
}
