import {
  DeleteAlarmsCommand,
  DescribeAlarmHistoryCommand,
  DescribeAlarmsCommand,
  DescribeAlarmsForMetricCommand,
  type MetricAlarm,
  PutMetricAlarmCommand,
  type PutMetricAlarmCommandInput,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, T0, waitFor } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const dims = { EndpointName: 'ep', VariantName: 'AllTraffic' };
const metric = (metricName: string) => ({ namespace: 'AWS/SageMaker', metricName, dimensions: dims });

function alarmInput(name: string, metricName: string, extra: Partial<PutMetricAlarmCommandInput> = {}) {
  return {
    AlarmName: name,
    Namespace: 'AWS/SageMaker',
    MetricName: metricName,
    Dimensions: [
      { Name: 'EndpointName', Value: 'ep' },
      { Name: 'VariantName', Value: 'AllTraffic' },
    ],
    Statistic: 'Maximum',
    Period: 10,
    EvaluationPeriods: 1,
    Threshold: 10,
    ComparisonOperator: 'GreaterThanThreshold',
    ...extra,
  } as PutMetricAlarmCommandInput;
}

async function alarm(name: string): Promise<MetricAlarm> {
  const out = await h.cw.send(new DescribeAlarmsCommand({ AlarmNames: [name] }));
  return out.MetricAlarms?.[0] as MetricAlarm;
}

async function waitState(name: string, state: string): Promise<MetricAlarm> {
  return waitFor(async () => {
    const a = await alarm(name);
    return a.StateValue === state ? a : undefined;
  });
}

describe('PutMetricAlarm / DescribeAlarms', () => {
  it('a new alarm starts INSUFFICIENT_DATA and reads back with its configuration and Date timestamps (prevents wrong wire shapes)', async () => {
    await h.cw.send(
      new PutMetricAlarmCommand(
        alarmInput('a1', 'NoData', {
          ExtendedStatistic: 'p95',
          Statistic: undefined,
          AlarmActions: ['arn:aws:sns:us-east-1:123456789012:topic'],
          DatapointsToAlarm: 1,
          TreatMissingData: 'missing',
          Unit: 'Count',
        }),
      ),
    );
    const a = await alarm('a1');
    expect(a).toMatchObject({
      AlarmName: 'a1',
      AlarmArn: 'arn:aws:cloudwatch:us-east-1:123456789012:alarm:a1',
      StateValue: 'INSUFFICIENT_DATA',
      StateReason: 'Unchecked: Initial alarm creation',
      ExtendedStatistic: 'p95',
      Period: 10,
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
      Threshold: 10,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'missing',
      Unit: 'Count',
      ActionsEnabled: true,
      AlarmActions: ['arn:aws:sns:us-east-1:123456789012:topic'],
    });
    expect(a.Statistic).toBeUndefined();
    expect(a.StateUpdatedTimestamp).toBeInstanceOf(Date);
    expect(a.StateUpdatedTimestamp?.getTime()).toBe(T0);
  });

  it('filters by prefix and state and paginates in name order with NextToken (prevents drift missing alarms past the first page)', async () => {
    for (const n of ['b3', 'b1', 'b5', 'b2', 'b4', 'other']) {
      await h.cw.send(new PutMetricAlarmCommand(alarmInput(n, 'NoData')));
    }
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const out = await h.cw.send(
        new DescribeAlarmsCommand({ AlarmNamePrefix: 'b', MaxRecords: 2, NextToken: token }),
      );
      names.push(...(out.MetricAlarms ?? []).map((a) => a.AlarmName as string));
      token = out.NextToken;
      pages++;
    } while (token);
    expect(names).toEqual(['b1', 'b2', 'b3', 'b4', 'b5']);
    expect(pages).toBe(3);
    const ok = await h.cw.send(new DescribeAlarmsCommand({ StateValue: 'OK' }));
    expect(ok.MetricAlarms).toEqual([]);
  });

  it('refuses metric-math alarms clearly (prevents silently accepting alarms it cannot evaluate)', async () => {
    await expect(
      h.cw.send(
        new PutMetricAlarmCommand({
          AlarmName: 'math',
          EvaluationPeriods: 1,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanThreshold',
          Metrics: [{ Id: 'e1', Expression: 'm1 * 2' }],
        }),
      ),
    ).rejects.toMatchObject({
      name: 'InvalidParameterValueException',
      message: expect.stringMatching(/metric math/),
    });
  });

  it('rejects a Period that CloudWatch does not allow and Statistic together with ExtendedStatistic (prevents invalid alarms)', async () => {
    await expect(
      h.cw.send(new PutMetricAlarmCommand(alarmInput('bad', 'M', { Period: 45 }))),
    ).rejects.toMatchObject({
      name: 'InvalidParameterValueException',
    });
    await expect(
      h.cw.send(new PutMetricAlarmCommand(alarmInput('bad', 'M', { ExtendedStatistic: 'p95' }))),
    ).rejects.toMatchObject({ name: 'InvalidParameterCombinationException' });
  });

  it('DescribeAlarmsForMetric finds alarms by metric and dimensions (prevents validate missing deployed alarms)', async () => {
    await h.cw.send(new PutMetricAlarmCommand(alarmInput('m1', 'ConcurrentRequestsPerModel')));
    await h.cw.send(new PutMetricAlarmCommand(alarmInput('m2', 'Invocations')));
    const out = await h.cw.send(
      new DescribeAlarmsForMetricCommand({
        Namespace: 'AWS/SageMaker',
        MetricName: 'ConcurrentRequestsPerModel',
        Dimensions: [
          { Name: 'VariantName', Value: 'AllTraffic' },
          { Name: 'EndpointName', Value: 'ep' },
        ],
      }),
    );
    expect(out.MetricAlarms?.map((a) => a.AlarmName)).toEqual(['m1']);
  });

  it('DeleteAlarms removes alarms and ignores names that do not exist (prevents cleanup failing on already-deleted alarms)', async () => {
    await h.cw.send(new PutMetricAlarmCommand(alarmInput('d1', 'M')));
    await h.cw.send(new DeleteAlarmsCommand({ AlarmNames: ['d1', 'never-existed'] }));
    expect((await h.cw.send(new DescribeAlarmsCommand({}))).MetricAlarms).toEqual([]);
  });

  it('SetAlarmState on a missing alarm is ResourceNotFound (prevents silent success)', async () => {
    await expect(
      h.cw.send(new SetAlarmStateCommand({ AlarmName: 'nope', StateValue: 'ALARM', StateReason: 'test' })),
    ).rejects.toMatchObject({ name: 'ResourceNotFound' });
  });

  it('an unknown operation is refused naming it, over the wire and from the handler (prevents a silent 200)', async () => {
    await expect(h.autoScaling.cloudWatchAlarms('GetDashboard', {})).rejects.toMatchObject({
      type: 'UnknownOperationException',
      message: 'Unknown operation GetDashboard',
    });
    const res = await fetch(h.url, {
      method: 'POST',
      headers: {
        'x-amz-target': 'GraniteServiceVersion20100801.PutAnomalyDetector',
        'content-type': 'application/x-amz-json-1.0',
      },
      body: '{}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      __type: 'UnknownOperationException',
      message: 'Unknown operation PutAnomalyDetector',
    });
  });
});

describe('alarm evaluation from the metrics', () => {
  it('M of N: 3 breaching of the last 5 alarms, 2 of 5 does not (prevents N-of-N or any-of-N evaluation)', async () => {
    const three = [20, 0, 20, 0, 20];
    const two = [20, 0, 20, 0, 0];
    for (const [i, v] of three.entries()) h.metrics.push(metric('Three'), T0 - (5 - i) * 10_000, v);
    for (const [i, v] of two.entries()) h.metrics.push(metric('Two'), T0 - (5 - i) * 10_000, v);
    await h.cw.send(
      new PutMetricAlarmCommand(alarmInput('three', 'Three', { EvaluationPeriods: 5, DatapointsToAlarm: 3 })),
    );
    await h.cw.send(
      new PutMetricAlarmCommand(alarmInput('two', 'Two', { EvaluationPeriods: 5, DatapointsToAlarm: 3 })),
    );
    const a = await waitState('three', 'ALARM');
    expect(a.StateReason).toMatch(/^Threshold Crossed: 3 out of the last 5 datapoints/);
    expect(JSON.parse(a.StateReasonData as string)).toMatchObject({
      version: '1.0',
      statistic: 'Maximum',
      period: 10,
      threshold: 10,
    });
    await waitState('two', 'OK');
  });

  it('each TreatMissingData mode on a metric with no data (prevents an idle endpoint never scaling in, or phantom alarms)', async () => {
    for (const mode of ['missing', 'breaching', 'notBreaching', 'ignore']) {
      await h.cw.send(
        new PutMetricAlarmCommand(
          alarmInput(`tmd-${mode}`, 'Silent', {
            TreatMissingData: mode,
            ComparisonOperator: 'LessThanOrEqualToThreshold',
          }),
        ),
      );
    }
    await waitState('tmd-breaching', 'ALARM');
    await waitState('tmd-notBreaching', 'OK');
    await h.afterTicks(2);
    expect((await alarm('tmd-missing')).StateValue).toBe('INSUFFICIENT_DATA');
    expect((await alarm('tmd-ignore')).StateValue).toBe('INSUFFICIENT_DATA');
  });

  it('when data stops, ignore keeps ALARM while missing goes to INSUFFICIENT_DATA (prevents confusing the two modes)', async () => {
    h.metrics.push(metric('Stops'), T0 - 10_000, 50);
    await h.cw.send(new PutMetricAlarmCommand(alarmInput('ign', 'Stops', { TreatMissingData: 'ignore' })));
    await h.cw.send(new PutMetricAlarmCommand(alarmInput('mis', 'Stops', { TreatMissingData: 'missing' })));
    await waitState('ign', 'ALARM');
    await waitState('mis', 'ALARM');
    h.clock.advance(10 * 10_000); // the datapoint leaves the evaluation range
    await waitState('mis', 'INSUFFICIENT_DATA');
    await h.afterTicks(2);
    expect((await alarm('ign')).StateValue).toBe('ALARM');
  });

  it('only completed periods count, aligned to the period (prevents alarming on a half-finished minute)', async () => {
    h.clock.t = T0 + 59_000;
    h.metrics.push(metric('Aligned'), T0 + 1_000, 99);
    await h.cw.send(new PutMetricAlarmCommand(alarmInput('aligned', 'Aligned', { Period: 60 })));
    await h.afterTicks(2);
    expect((await alarm('aligned')).StateValue).toBe('INSUFFICIENT_DATA');
    h.clock.t = T0 + 60_000; // the minute [T0, T0+60 s) has ended
    const a = await waitState('aligned', 'ALARM');
    expect(JSON.parse(a.StateReasonData as string).evaluatedDatapoints).toEqual([
      { timestamp: new Date(T0).toISOString(), value: 99 },
    ]);
  });

  it('ExtendedStatistic p95 sees a tail that Average hides (prevents percentile alarms evaluating another statistic)', async () => {
    const samples = [...Array(18).fill(1), 100, 100];
    h.metrics.push(metric('Latency'), T0 - 5_000, ...samples);
    await h.cw.send(
      new PutMetricAlarmCommand(
        alarmInput('p95', 'Latency', { Statistic: undefined, ExtendedStatistic: 'p95', Threshold: 50 }),
      ),
    );
    await h.cw.send(
      new PutMetricAlarmCommand(alarmInput('avg', 'Latency', { Statistic: 'Average', Threshold: 50 })),
    );
    await waitState('p95', 'ALARM');
    await waitState('avg', 'OK');
    expect(h.metrics.stats.has('p95')).toBe(true);
  });

  it('SetAlarmState holds until the next evaluation period, then the metrics decide again (prevents a stuck manual state)', async () => {
    await h.cw.send(
      new PutMetricAlarmCommand(alarmInput('manual', 'Quiet', { TreatMissingData: 'notBreaching' })),
    );
    await waitState('manual', 'OK');
    await h.cw.send(
      new SetAlarmStateCommand({ AlarmName: 'manual', StateValue: 'ALARM', StateReason: 'testing' }),
    );
    await h.afterTicks(2);
    expect(await alarm('manual')).toMatchObject({ StateValue: 'ALARM', StateReason: 'testing' });
    h.clock.advance(10_000);
    await waitState('manual', 'OK');
  });

  it('updating an alarm keeps its state (prevents PutMetricAlarm resetting a firing alarm, as AWS does not)', async () => {
    h.metrics.push(metric('Hot'), T0 - 10_000, 50);
    await h.cw.send(new PutMetricAlarmCommand(alarmInput('upd', 'Hot')));
    await waitState('upd', 'ALARM');
    h.autoScaling.close(); // freeze evaluation to observe the update alone
    await h.cw.send(new PutMetricAlarmCommand(alarmInput('upd', 'Hot', { Threshold: 40 })));
    expect(await alarm('upd')).toMatchObject({ StateValue: 'ALARM', Threshold: 40 });
  });
});

describe('DescribeAlarmHistory', () => {
  it('records every state change with its time, newest first, filtered by alarm and type (prevents a drill timing an alarm from a poll instead of its transition)', async () => {
    h.metrics.push(metric('Hist'), T0 - 10_000, 50);
    await h.cw.send(new PutMetricAlarmCommand(alarmInput('hist', 'Hist')));
    await h.cw.send(
      new PutMetricAlarmCommand(alarmInput('other', 'Quiet', { TreatMissingData: 'notBreaching' })),
    );
    await waitState('hist', 'ALARM');
    await waitState('other', 'OK');
    h.clock.advance(30_000); // the datapoint leaves the range: back to INSUFFICIENT_DATA
    await waitState('hist', 'INSUFFICIENT_DATA');
    const out = await h.cw.send(
      new DescribeAlarmHistoryCommand({ AlarmName: 'hist', HistoryItemType: 'StateUpdate' }),
    );
    const items = out.AlarmHistoryItems ?? [];
    expect(items.map((i) => i.HistorySummary)).toEqual([
      'Alarm updated from ALARM to INSUFFICIENT_DATA',
      'Alarm updated from INSUFFICIENT_DATA to ALARM',
    ]);
    expect(items[0]?.Timestamp).toEqual(new Date(T0 + 30_000));
    expect(items[1]?.Timestamp).toEqual(new Date(T0));
    expect(JSON.parse(items[1]?.HistoryData as string)).toMatchObject({
      oldState: { stateValue: 'INSUFFICIENT_DATA' },
      newState: { stateValue: 'ALARM' },
    });
    const ascending = await h.cw.send(
      new DescribeAlarmHistoryCommand({ ScanBy: 'TimestampAscending', MaxRecords: 1 }),
    );
    expect(ascending.AlarmHistoryItems?.[0]).toMatchObject({
      AlarmName: 'hist',
      HistoryItemType: 'ConfigurationUpdate',
    });
    expect(ascending.NextToken).toBeDefined();
    const window = await h.cw.send(
      new DescribeAlarmHistoryCommand({
        HistoryItemType: 'StateUpdate',
        StartDate: new Date(T0 + 1),
        EndDate: new Date(T0 + 60_000),
      }),
    );
    expect(window.AlarmHistoryItems?.map((i) => i.AlarmName)).toEqual(['hist']);
  });
});
