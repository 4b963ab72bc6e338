/**
 * CloudWatch metric alarms: PutMetricAlarm, DescribeAlarms, DeleteAlarms, SetAlarmState,
 * DescribeAlarmsForMetric, DescribeAlarmHistory, and the evaluation loop that moves alarms between states from the
 * metrics store and invokes their actions.
 *
 * Actions (AWS: "Alarm actions", CloudWatch User Guide): an action runs when the alarm enters a
 * state and, for Auto Scaling actions, again for every period the alarm stays in that state. Here
 * the state is re-evaluated on every tick (cheap, responsive) but a persisting state re-invokes
 * its actions only once per newly completed period, as AWS does.
 */

import {
  type AlarmState,
  COMPARISONS,
  type Comparison,
  type Evaluation,
  evaluateAlarm,
  evaluationRange,
  initialAlarmProgress,
  MISSING_DATA_MODES,
  type MissingData,
  stepAlarm,
} from '../../autoscaling/alarm-evaluation.js';
import { AwsError } from '../aws-error.js';
import type { AlarmStateChange, MetricReader } from '../contracts.js';
import { epochSeconds, type Input, Reader } from '../wire.js';
import { cwInvalid, cwMissing, decodeToken, page } from './input.js';

export const ALARM_OPERATIONS = [
  'PutMetricAlarm',
  'DescribeAlarms',
  'DeleteAlarms',
  'SetAlarmState',
  'DescribeAlarmsForMetric',
  'DescribeAlarmHistory',
] as const;

const HISTORY_TYPES = ['ConfigurationUpdate', 'StateUpdate', 'Action'] as const;
type HistoryItemType = (typeof HISTORY_TYPES)[number];
/** History items kept (AWS keeps two weeks); the oldest go first. */
const MAX_HISTORY = 10_000;

/** One DescribeAlarmHistory item, as CloudWatch records it. */
interface HistoryItem {
  alarmName: string;
  timestampMs: number;
  type: HistoryItemType;
  summary: string;
  data: string;
}

const STATISTICS = ['SampleCount', 'Average', 'Sum', 'Minimum', 'Maximum'] as const;
const STATES = ['OK', 'ALARM', 'INSUFFICIENT_DATA'] as const;
/** pNN or pNN.NN (0..100). Other extended statistics (tm90, wm, ...) are not computed locally. */
const PERCENTILE = /^p(100|\d{1,2})(\.\d{1,2})?$/;

export interface Dimension {
  Name: string;
  Value: string;
}

export interface MetricAlarm {
  name: string;
  arn: string;
  description: string | undefined;
  actionsEnabled: boolean;
  okActions: string[];
  alarmActions: string[];
  insufficientDataActions: string[];
  metricName: string;
  namespace: string;
  statistic: string | undefined;
  extendedStatistic: string | undefined;
  dimensions: Dimension[];
  periodS: number;
  unit: string | undefined;
  evaluationPeriods: number;
  /** As given; evaluation uses EvaluationPeriods when absent (AWS default). */
  datapointsToAlarm: number | undefined;
  threshold: number;
  comparison: Comparison;
  /** As given; `missing` when absent (AWS default). */
  treatMissingData: MissingData | undefined;
  evaluateLowSampleCountPercentile: string | undefined;
  configUpdatedMs: number;
  state: AlarmState;
  stateReason: string;
  stateReasonData: string | undefined;
  stateUpdatedMs: number;
  stateTransitionedMs: number;
  /** SetAlarmState holds its state until a period ends after this instant (AWS: "until the next evaluation"). */
  overrideUntilMs: number | undefined;
  /** End of the last period whose completion already invoked the current state's actions. */
  lastActionPeriodEndMs: number;
  lastEvaluation: Evaluation | undefined;
}

/** What the alarm store hands to Application Auto Scaling when an alarm invokes its actions. */
export interface AlarmActionEvent {
  change: AlarmStateChange;
  /** The ARNs configured for the state (AlarmActions for ALARM, OKActions for OK, ...). */
  actions: readonly string[];
  alarm: Readonly<MetricAlarm>;
  /** The evaluation that decided the state; undefined when SetAlarmState set it. */
  evaluation: Evaluation | undefined;
}

export interface AlarmStoreOptions {
  metrics: MetricReader;
  accountId: string;
  region: string;
  now: () => number;
}

export class AlarmStore {
  private readonly alarms = new Map<string, MetricAlarm>();
  /** Oldest first. */
  private history: HistoryItem[] = [];
  /** Receives every action invocation; wired to Application Auto Scaling. */
  onAction: (event: AlarmActionEvent) => void = () => {};

  constructor(private readonly opts: AlarmStoreOptions) {}

  reset(): void {
    this.alarms.clear();
    this.history = [];
  }

  private remember(item: HistoryItem): void {
    this.history.push(item);
    if (this.history.length > MAX_HISTORY) this.history = this.history.slice(-MAX_HISTORY);
  }

  arnFor(name: string): string {
    return `arn:aws:cloudwatch:${this.opts.region}:${this.opts.accountId}:alarm:${name}`;
  }

  get(name: string): MetricAlarm | undefined {
    return this.alarms.get(name);
  }

  /** Alarms whose actions (any state) include `arn`. */
  withAction(arn: string): MetricAlarm[] {
    return [...this.alarms.values()]
      .filter(
        (a) =>
          a.alarmActions.includes(arn) ||
          a.okActions.includes(arn) ||
          a.insufficientDataActions.includes(arn),
      )
      .sort(byName);
  }

  /** Drops `arn` from every alarm's actions: what deleting a step scaling policy does on AWS. */
  removeAction(arn: string): void {
    for (const a of this.alarms.values()) {
      a.alarmActions = a.alarmActions.filter((x) => x !== arn);
      a.okActions = a.okActions.filter((x) => x !== arn);
      a.insufficientDataActions = a.insufficientDataActions.filter((x) => x !== arn);
    }
  }

  delete(names: readonly string[]): void {
    for (const n of names) this.alarms.delete(n);
  }

  handle = async (operation: string, input: Record<string, unknown>): Promise<unknown> => {
    switch (operation) {
      case 'PutMetricAlarm':
        this.put(input);
        return {};
      case 'DescribeAlarms':
        return this.describeAlarms(input);
      case 'DeleteAlarms':
        return this.deleteAlarms(input);
      case 'SetAlarmState':
        return this.setAlarmState(input);
      case 'DescribeAlarmsForMetric':
        return this.describeAlarmsForMetric(input);
      case 'DescribeAlarmHistory':
        return this.describeAlarmHistory(input);
      default:
        throw new AwsError('UnknownOperationException', `Unknown operation ${operation}`);
    }
  };

  /** PutMetricAlarm; also how Application Auto Scaling creates its managed alarms. */
  put(input: Input): MetricAlarm {
    const r = new Reader(input, cwInvalid, cwMissing);
    const name = r.str('AlarmName');
    if (name.length < 1 || name.length > 255) throw cwInvalid('AlarmName must be 1 to 255 characters long.');
    if (r.has('Metrics') || r.has('ThresholdMetricId')) {
      throw cwInvalid(
        'Alarms on metric math (Metrics, ThresholdMetricId) are not supported by the local SageMaker; use MetricName, Namespace, Dimensions and Statistic or ExtendedStatistic.',
      );
    }
    for (const unsupported of ['EvaluationCriteria', 'EvaluationWindow', 'WarmUpConfiguration']) {
      if (r.has(unsupported)) throw cwInvalid(`${unsupported} is not supported by the local SageMaker.`);
    }
    const metricName = r.str('MetricName');
    const namespace = r.str('Namespace');
    const statistic = r.oneOf('Statistic', STATISTICS, true);
    const extendedStatistic = r.str('ExtendedStatistic', true);
    if ((statistic === undefined) === (extendedStatistic === undefined)) {
      throw new AwsError(
        'InvalidParameterCombination',
        'Exactly one element of the list [Statistic, ExtendedStatistic] must be specified.',
      );
    }
    if (extendedStatistic !== undefined && !PERCENTILE.test(extendedStatistic)) {
      throw cwInvalid(
        `The value ${extendedStatistic} for parameter ExtendedStatistic is not supported by the local SageMaker: use a percentile pNN or pNN.NN.`,
      );
    }
    const dimensions = readDimensions(r);
    const periodS = r.int('Period');
    // AWS: 10, 20 and 30 s (high resolution) or any multiple of 60 (1 and 5 also exist for
    // high-resolution custom metrics).
    if (!([1, 5, 10, 20, 30].includes(periodS) || (periodS > 0 && periodS % 60 === 0))) {
      throw cwInvalid(`The parameter Period must be 10, 20, 30 or a multiple of 60 (got ${periodS}).`);
    }
    const evaluationPeriods = r.int('EvaluationPeriods');
    if (evaluationPeriods < 1) throw cwInvalid('The parameter EvaluationPeriods must be at least 1.');
    // AWS: at most 7 days in total, and at most 1 day for periods under an hour.
    const maxTotal = periodS < 3600 ? 86_400 : 604_800;
    if (periodS * evaluationPeriods > maxTotal) {
      throw cwInvalid(`Period * EvaluationPeriods must be at most ${maxTotal} seconds for this period.`);
    }
    const datapointsToAlarm = r.int('DatapointsToAlarm', true);
    if (datapointsToAlarm !== undefined && (datapointsToAlarm < 1 || datapointsToAlarm > evaluationPeriods)) {
      throw cwInvalid('DatapointsToAlarm must be between 1 and EvaluationPeriods.');
    }
    const threshold = r.num('Threshold');
    const comparison = r.str('ComparisonOperator');
    if (!(COMPARISONS as readonly string[]).includes(comparison)) {
      throw cwInvalid(
        `ComparisonOperator ${comparison} is not supported by the local SageMaker (anomaly detection bands are not); use one of ${COMPARISONS.join(', ')}.`,
      );
    }
    const treatMissingData = r.str('TreatMissingData', true);
    if (
      treatMissingData !== undefined &&
      !(MISSING_DATA_MODES as readonly string[]).includes(treatMissingData)
    ) {
      throw cwInvalid(`TreatMissingData must be one of ${MISSING_DATA_MODES.join(', ')}.`);
    }
    const actions = (key: string): string[] => {
      const list = r.strList(key) ?? [];
      if (list.length > 5) throw new AwsError('LimitExceeded', `The maximum number of ${key} is 5.`);
      return [...list];
    };

    const now = this.opts.now();
    const existing = this.alarms.get(name);
    const config = {
      name,
      arn: this.arnFor(name),
      description: r.str('AlarmDescription', true),
      actionsEnabled: r.bool('ActionsEnabled') ?? true,
      okActions: actions('OKActions'),
      alarmActions: actions('AlarmActions'),
      insufficientDataActions: actions('InsufficientDataActions'),
      metricName,
      namespace,
      statistic,
      extendedStatistic,
      dimensions,
      periodS,
      unit: r.str('Unit', true),
      evaluationPeriods,
      datapointsToAlarm,
      threshold,
      comparison: comparison as Comparison,
      treatMissingData: treatMissingData as MissingData | undefined,
      evaluateLowSampleCountPercentile: r.str('EvaluateLowSampleCountPercentile', true),
      configUpdatedMs: now,
    };
    this.remember({
      alarmName: name,
      timestampMs: now,
      type: 'ConfigurationUpdate',
      summary: `Alarm "${name}" ${existing ? 'updated' : 'created'}`,
      data: JSON.stringify({ version: '1.0', type: existing ? 'Update' : 'Create' }),
    });
    if (existing) {
      // AWS: an update overwrites the configuration and leaves the state unchanged.
      Object.assign(existing, config);
      existing.lastEvaluation = undefined;
      return existing;
    }
    const alarm: MetricAlarm = {
      ...config,
      state: 'INSUFFICIENT_DATA',
      stateReason: 'Unchecked: Initial alarm creation',
      stateReasonData: undefined,
      stateUpdatedMs: now,
      stateTransitionedMs: now,
      overrideUntilMs: undefined,
      // No action is invoked at creation: only a later transition or period does that.
      lastActionPeriodEndMs: initialAlarmProgress(specOf(config), now).lastActionPeriodEndMs,
      lastEvaluation: undefined,
    };
    this.alarms.set(name, alarm);
    return alarm;
  }

  private describeAlarms(input: Input): unknown {
    const r = new Reader(input, cwInvalid, cwMissing);
    const names = r.strList('AlarmNames');
    const prefix = r.str('AlarmNamePrefix', true);
    if (names && names.length > 100) throw cwInvalid('AlarmNames may hold at most 100 names.');
    if (names && prefix !== undefined) {
      throw new AwsError(
        'InvalidParameterCombination',
        'AlarmNames and AlarmNamePrefix cannot be specified together.',
      );
    }
    const stateValue = r.oneOf('StateValue', STATES, true);
    const actionPrefix = r.str('ActionPrefix', true);
    const types = r.strList('AlarmTypes');
    const maxRecords = r.int('MaxRecords', true) ?? 50;
    if (maxRecords < 1 || maxRecords > 100) throw cwInvalid('MaxRecords must be between 1 and 100.');
    for (const unsupported of ['ChildrenOfAlarmName', 'ParentsOfAlarmName']) {
      if (r.has(unsupported))
        throw cwInvalid(`${unsupported} is not supported: the local SageMaker has no composite alarms.`);
    }
    // AWS: without AlarmTypes only metric alarms are returned.
    const wantMetric = !types || types.includes('MetricAlarm');
    const matching = wantMetric
      ? [...this.alarms.values()]
          .filter((a) => !names || names.includes(a.name))
          .filter((a) => prefix === undefined || a.name.startsWith(prefix))
          .filter((a) => stateValue === undefined || a.state === stateValue)
          .filter(
            (a) =>
              actionPrefix === undefined ||
              [...a.alarmActions, ...a.okActions, ...a.insufficientDataActions].some((x) =>
                x.startsWith(actionPrefix),
              ),
          )
          .sort(byName)
      : [];
    const scope = JSON.stringify([names, prefix, stateValue, actionPrefix, types]);
    const offset = decodeToken(r.str('NextToken', true), scope, (m) => new AwsError('InvalidNextToken', m));
    const { items, nextToken } = page(matching, offset, maxRecords, scope);
    return {
      MetricAlarms: items.map(toWire),
      CompositeAlarms: [],
      ...(nextToken ? { NextToken: nextToken } : {}),
    };
  }

  /**
   * DescribeAlarmHistory: state changes (StateUpdate) and configuration changes
   * (ConfigurationUpdate), newest first unless ScanBy is TimestampAscending. Alarm actions are
   * invoked in process here and leave no `Action` items.
   */
  private describeAlarmHistory(input: Input): unknown {
    const r = new Reader(input, cwInvalid, cwMissing);
    const name = r.str('AlarmName', true);
    const type = r.oneOf('HistoryItemType', HISTORY_TYPES, true);
    const types = r.strList('AlarmTypes');
    const startMs = r.time('StartDate', true);
    const endMs = r.time('EndDate', true);
    const scanBy = r.oneOf('ScanBy', ['TimestampDescending', 'TimestampAscending'] as const, true);
    const maxRecords = r.int('MaxRecords', true) ?? 100;
    if (maxRecords < 1 || maxRecords > 100) throw cwInvalid('MaxRecords must be between 1 and 100.');
    const wantMetric = !types || types.includes('MetricAlarm');
    const matching = (wantMetric ? this.history : [])
      .filter((h) => name === undefined || h.alarmName === name)
      .filter((h) => type === undefined || h.type === type)
      .filter((h) => startMs === undefined || h.timestampMs >= startMs)
      .filter((h) => endMs === undefined || h.timestampMs <= endMs);
    if (scanBy !== 'TimestampAscending') matching.reverse();
    const scope = JSON.stringify(['history', name, type, types, startMs, endMs, scanBy]);
    const offset = decodeToken(r.str('NextToken', true), scope, (m) => new AwsError('InvalidNextToken', m));
    const { items, nextToken } = page(matching, offset, maxRecords, scope);
    return {
      AlarmHistoryItems: items.map((h) => ({
        AlarmName: h.alarmName,
        AlarmType: 'MetricAlarm',
        Timestamp: epochSeconds(h.timestampMs),
        HistoryItemType: h.type,
        HistorySummary: h.summary,
        HistoryData: h.data,
      })),
      ...(nextToken ? { NextToken: nextToken } : {}),
    };
  }

  private describeAlarmsForMetric(input: Input): unknown {
    const r = new Reader(input, cwInvalid, cwMissing);
    const metricName = r.str('MetricName');
    const namespace = r.str('Namespace');
    const statistic = r.oneOf('Statistic', STATISTICS, true);
    const extendedStatistic = r.str('ExtendedStatistic', true);
    const dimensions = r.has('Dimensions') ? readDimensions(r) : undefined;
    const period = r.int('Period', true);
    const unit = r.str('Unit', true);
    const found = [...this.alarms.values()]
      .filter((a) => a.metricName === metricName && a.namespace === namespace)
      .filter((a) => statistic === undefined || a.statistic === statistic)
      .filter((a) => extendedStatistic === undefined || a.extendedStatistic === extendedStatistic)
      .filter((a) => dimensions === undefined || sameDimensions(a.dimensions, dimensions))
      .filter((a) => period === undefined || a.periodS === period)
      .filter((a) => unit === undefined || a.unit === unit)
      .sort(byName);
    return { MetricAlarms: found.map(toWire) };
  }

  /**
   * DeleteAlarms. Names that do not exist are skipped without error: the real service does not
   * fail on them (the CloudFormation alarm handler had to add its own NotFound check for that
   * reason, aws-cloudformation/cloudformation-cli#456).
   */
  private deleteAlarms(input: Input): unknown {
    const r = new Reader(input, cwInvalid, cwMissing);
    const names = r.strList('AlarmNames');
    if (!names) throw cwMissing('The parameter AlarmNames is required.');
    if (names.length > 100) throw cwInvalid('AlarmNames may hold at most 100 names.');
    this.delete(names);
    return {};
  }

  /**
   * SetAlarmState: AWS sets the state for testing; it holds until the next evaluation, and a
   * change of state invokes the new state's actions. Evaluations here happen every tick, so the
   * override is kept until the current period has ended, the cadence at which AWS re-evaluates.
   */
  private setAlarmState(input: Input): unknown {
    const r = new Reader(input, cwInvalid, cwMissing);
    const name = r.str('AlarmName');
    const state = r.oneOf('StateValue', STATES);
    const reason = r.str('StateReason');
    const reasonData = r.str('StateReasonData', true);
    if (reasonData !== undefined) {
      try {
        JSON.parse(reasonData);
      } catch {
        throw new AwsError('InvalidFormat', 'StateReasonData must be valid JSON.');
      }
    }
    const alarm = this.alarms.get(name);
    if (!alarm) throw new AwsError('ResourceNotFound', `Alarm ${name} does not exist.`, 404);
    const now = this.opts.now();
    const { endMs } = evaluationRange(specOf(alarm), now);
    alarm.overrideUntilMs = endMs + alarm.periodS * 1000;
    this.transition(alarm, state, reason, reasonData, now, endMs, undefined);
    return {};
  }

  /** One evaluation pass over every alarm: O(alarms) metric queries. */
  evaluateAll(): void {
    const now = this.opts.now();
    for (const alarm of [...this.alarms.values()]) {
      try {
        this.evaluateOne(alarm, now);
      } catch {
        // A failing metrics query leaves this alarm as it is until the next tick.
      }
    }
  }

  private evaluateOne(alarm: MetricAlarm, now: number): void {
    const spec = specOf(alarm);
    const range = evaluationRange(spec, now);
    const points = this.opts.metrics.query({
      namespace: alarm.namespace,
      metricName: alarm.metricName,
      dimensions: Object.fromEntries(alarm.dimensions.map((d) => [d.Name, d.Value])),
      stat: alarm.statistic ?? (alarm.extendedStatistic as string),
      periodS: alarm.periodS,
      startMs: range.startMs,
      endMs: range.endMs,
    });
    const ev = evaluateAlarm(spec, points, now);
    alarm.lastEvaluation = ev;
    if (alarm.overrideUntilMs !== undefined) {
      if (range.endMs < alarm.overrideUntilMs) return; // SetAlarmState still holds
      alarm.overrideUntilMs = undefined;
    }
    const step = stepAlarm(alarm, ev);
    if (step.transitioned) {
      this.transition(alarm, step.next.state, ev.reason, reasonData(alarm, ev, now), now, range.endMs, ev);
    } else if (step.invoke) {
      // The state persisted through another completed period: invoke its actions again.
      alarm.lastActionPeriodEndMs = step.next.lastActionPeriodEndMs;
      this.invoke(alarm, alarm.state, alarm.state, alarm.stateReason, now, ev);
    }
  }

  private transition(
    alarm: MetricAlarm,
    state: AlarmState,
    reason: string,
    data: string | undefined,
    now: number,
    periodEndMs: number,
    ev: Evaluation | undefined,
  ): void {
    const previous = alarm.state;
    alarm.stateReason = reason;
    alarm.stateReasonData = data;
    alarm.stateUpdatedMs = now;
    if (previous === state) return;
    alarm.state = state;
    alarm.stateTransitionedMs = now;
    this.remember({
      alarmName: alarm.name,
      timestampMs: now,
      type: 'StateUpdate',
      summary: `Alarm updated from ${previous} to ${state}`,
      data: JSON.stringify({
        version: '1.0',
        oldState: { stateValue: previous },
        newState: {
          stateValue: state,
          stateReason: reason,
          ...(data !== undefined ? { stateReasonData: JSON.parse(data) } : {}),
        },
      }),
    });
    alarm.lastActionPeriodEndMs = periodEndMs;
    this.invoke(alarm, previous, state, reason, now, ev);
  }

  private invoke(
    alarm: MetricAlarm,
    previous: AlarmState,
    state: AlarmState,
    reason: string,
    now: number,
    ev: Evaluation | undefined,
  ): void {
    if (!alarm.actionsEnabled) return;
    const actions =
      state === 'ALARM'
        ? alarm.alarmActions
        : state === 'OK'
          ? alarm.okActions
          : alarm.insufficientDataActions;
    if (actions.length === 0) return;
    const change: AlarmStateChange = {
      alarmName: alarm.name,
      alarmArn: alarm.arn,
      previous,
      state,
      reason,
      atMs: now,
    };
    this.onAction({ change, actions: [...actions], alarm: { ...alarm }, evaluation: ev });
  }
}

function readDimensions(r: Reader): Dimension[] {
  const list = r.objList('Dimensions') ?? [];
  if (list.length > 30) throw cwInvalid('At most 30 dimensions are allowed.');
  return list.map((d) => {
    const dr = new Reader(d, cwInvalid, cwMissing);
    return { Name: dr.str('Name'), Value: dr.str('Value') };
  });
}

function sameDimensions(a: readonly Dimension[], b: readonly Dimension[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((d) => b.some((e) => e.Name === d.Name && e.Value === d.Value));
}

const byName = (a: { name: string }, b: { name: string }): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

function specOf(a: {
  periodS: number;
  evaluationPeriods: number;
  datapointsToAlarm: number | undefined;
  threshold: number;
  comparison: Comparison;
  treatMissingData: MissingData | undefined;
}) {
  return {
    periodS: a.periodS,
    evaluationPeriods: a.evaluationPeriods,
    datapointsToAlarm: a.datapointsToAlarm ?? a.evaluationPeriods,
    threshold: a.threshold,
    comparison: a.comparison,
    treatMissingData: a.treatMissingData ?? 'missing',
  };
}

/** StateReasonData in the shape CloudWatch writes for threshold alarms. */
function reasonData(alarm: MetricAlarm, ev: Evaluation, now: number): string {
  return JSON.stringify({
    version: '1.0',
    queryDate: new Date(now).toISOString(),
    startDate: new Date(ev.queryStartMs).toISOString(),
    ...(alarm.statistic ? { statistic: alarm.statistic } : { extendedStatistic: alarm.extendedStatistic }),
    period: alarm.periodS,
    recentDatapoints: ev.recent.map((p) => p.value).reverse(),
    threshold: alarm.threshold,
    evaluatedDatapoints: ev.evaluated.map((d) => ({
      timestamp: new Date(d.timestampMs).toISOString(),
      ...(d.value !== undefined ? { value: d.value } : {}),
    })),
  });
}

function toWire(a: MetricAlarm): Record<string, unknown> {
  const out: Record<string, unknown> = {
    AlarmName: a.name,
    AlarmArn: a.arn,
    AlarmConfigurationUpdatedTimestamp: epochSeconds(a.configUpdatedMs),
    ActionsEnabled: a.actionsEnabled,
    OKActions: a.okActions,
    AlarmActions: a.alarmActions,
    InsufficientDataActions: a.insufficientDataActions,
    StateValue: a.state,
    StateReason: a.stateReason,
    StateUpdatedTimestamp: epochSeconds(a.stateUpdatedMs),
    StateTransitionedTimestamp: epochSeconds(a.stateTransitionedMs),
    MetricName: a.metricName,
    Namespace: a.namespace,
    Dimensions: a.dimensions,
    Period: a.periodS,
    EvaluationPeriods: a.evaluationPeriods,
    Threshold: a.threshold,
    ComparisonOperator: a.comparison,
  };
  const optional: Record<string, unknown> = {
    AlarmDescription: a.description,
    StateReasonData: a.stateReasonData,
    Statistic: a.statistic,
    ExtendedStatistic: a.extendedStatistic,
    Unit: a.unit,
    DatapointsToAlarm: a.datapointsToAlarm,
    TreatMissingData: a.treatMissingData,
    EvaluateLowSampleCountPercentile: a.evaluateLowSampleCountPercentile,
  };
  for (const [k, v] of Object.entries(optional)) if (v !== undefined) out[k] = v;
  return out;
}
