/**
 * Scheduled actions in the local SageMaker, through the real Application Auto Scaling SDK client.
 * Time moves only with the injected clock; each evaluation is run with `tick()`, so no test sleeps.
 */
import {
  DeleteScheduledActionCommand,
  DeregisterScalableTargetCommand,
  DescribeScalableTargetsCommand,
  DescribeScalingActivitiesCommand,
  DescribeScheduledActionsCommand,
  PutScheduledActionCommand,
  type PutScheduledActionCommandInput,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, T0 } from './harness.js';

const EP = 'speech-kokoro-82m';
const RID = `endpoint/${EP}/variant/AllTraffic`;
const KEY = {
  ServiceNamespace: 'sagemaker',
  ResourceId: RID,
  ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
} as const;
const MINUTE = 60_000;

let h: Harness;
beforeEach(async () => {
  // A long timer interval: every evaluation in these tests is an explicit tick().
  h = await startHarness({ evaluationIntervalMs: 3_600_000 });
  h.capacity.add(RID, 1);
  await h.aas.send(new RegisterScalableTargetCommand({ ...KEY, MinCapacity: 1, MaxCapacity: 4 }));
});
afterEach(async () => {
  await h.close();
});

const put = (name: string, extra: Partial<PutScheduledActionCommandInput> = {}) =>
  h.aas.send(
    new PutScheduledActionCommand({
      ...KEY,
      ScheduledActionName: name,
      Schedule: 'cron(5 8 * * ? *)', // 08:05 UTC daily; the clock starts at 08:00
      ScalableTargetAction: { MinCapacity: 3 },
      ...extra,
    }),
  );

const describeActions = async (extra: Record<string, unknown> = {}) =>
  h.aas.send(new DescribeScheduledActionsCommand({ ServiceNamespace: 'sagemaker', ...extra }));

const activities = async () =>
  (await h.aas.send(new DescribeScalingActivitiesCommand({ ServiceNamespace: 'sagemaker', ResourceId: RID })))
    .ScalingActivities ?? [];

const target = async () =>
  (
    await h.aas.send(
      new DescribeScalableTargetsCommand({ ServiceNamespace: 'sagemaker', ResourceIds: [RID] }),
    )
  ).ScalableTargets?.[0];

async function at(ms: number): Promise<void> {
  h.clock.t = ms;
  await h.autoScaling.tick();
}

describe('PutScheduledAction / DescribeScheduledActions / DeleteScheduledAction', () => {
  it('describes what was put with the fields AWS returns (prevents validate and drift reading a shape AWS never sends)', async () => {
    await put('morning', {
      StartTime: new Date(T0 + MINUTE),
      EndTime: new Date(T0 + 86_400_000),
      Timezone: 'UTC',
      ScalableTargetAction: { MinCapacity: 3, MaxCapacity: 6 },
    });
    const out = await describeActions({ ResourceId: RID });
    expect(out.ScheduledActions).toHaveLength(1);
    const a = out.ScheduledActions?.[0];
    expect(a).toMatchObject({
      ...KEY,
      ScheduledActionName: 'morning',
      Schedule: 'cron(5 8 * * ? *)',
      Timezone: 'UTC',
      ScalableTargetAction: { MinCapacity: 3, MaxCapacity: 6 },
    });
    expect(a?.ScheduledActionARN).toMatch(
      new RegExp(
        `^arn:aws:autoscaling:us-east-1:123456789012:scheduledAction:[0-9a-f-]{36}:resource/sagemaker/${RID}:scheduledActionName/morning$`,
      ),
    );
    expect(a?.CreationTime?.getTime()).toBe(T0);
    expect(a?.StartTime?.getTime()).toBe(T0 + MINUTE);
    expect(a?.EndTime?.getTime()).toBe(T0 + 86_400_000);
  });

  it('an update changes only what it gives (prevents a re-deploy wiping a bound it did not mention)', async () => {
    await put('morning', { ScalableTargetAction: { MinCapacity: 2, MaxCapacity: 5 } });
    await put('morning', {
      Schedule: undefined,
      ScalableTargetAction: undefined,
      EndTime: new Date(T0 + 3_600_000),
    });
    const a = (await describeActions()).ScheduledActions?.[0];
    expect(a).toMatchObject({
      Schedule: 'cron(5 8 * * ? *)',
      ScalableTargetAction: { MinCapacity: 2, MaxCapacity: 5 },
    });
    expect(a?.EndTime?.getTime()).toBe(T0 + 3_600_000);
  });

  it('filters by name and pages with MaxResults and NextToken (prevents a reader missing actions past the first page)', async () => {
    for (const n of ['a', 'b', 'c']) await put(n);
    const first = await describeActions({ MaxResults: 2 });
    expect(first.ScheduledActions?.map((a) => a.ScheduledActionName)).toEqual(['a', 'b']);
    const second = await describeActions({ MaxResults: 2, NextToken: first.NextToken });
    expect(second.ScheduledActions?.map((a) => a.ScheduledActionName)).toEqual(['c']);
    expect(second.NextToken).toBeUndefined();
    const named = await describeActions({ ScheduledActionNames: ['b'] });
    expect(named.ScheduledActions?.map((a) => a.ScheduledActionName)).toEqual(['b']);
  });

  it('deletes one action, and refuses to delete an unknown one with ObjectNotFoundException', async () => {
    await put('a');
    await put('b');
    await h.aas.send(new DeleteScheduledActionCommand({ ...KEY, ScheduledActionName: 'a' }));
    expect((await describeActions()).ScheduledActions?.map((a) => a.ScheduledActionName)).toEqual(['b']);
    await expect(
      h.aas.send(new DeleteScheduledActionCommand({ ...KEY, ScheduledActionName: 'a' })),
    ).rejects.toMatchObject({
      name: 'ObjectNotFoundException',
      message: expect.stringContaining('scheduled action name: a'),
    });
  });

  it('DeregisterScalableTarget deletes the target scheduled actions (prevents an orphan action firing on a re-registered target)', async () => {
    await put('a');
    await h.aas.send(new DeregisterScalableTargetCommand(KEY));
    expect((await describeActions()).ScheduledActions).toEqual([]);
  });

  it.each([
    ['an unparseable schedule', { Schedule: 'cron(0 7 * * *)' }, 'ValidationException', /expected 6 fields/],
    ['a non-UTC timezone', { Timezone: 'Europe/Berlin' }, 'ValidationException', /Timezone Europe\/Berlin/],
    [
      'min above max',
      { ScalableTargetAction: { MinCapacity: 5, MaxCapacity: 2 } },
      'ValidationException',
      /Minimum capacity 5 cannot be greater than maximum capacity 2/,
    ],
    [
      'an empty action',
      { ScalableTargetAction: {} },
      'ValidationException',
      /MinCapacity, MaxCapacity or both/,
    ],
    [
      'StartTime after EndTime',
      { StartTime: new Date(T0 + 2 * MINUTE), EndTime: new Date(T0 + MINUTE) },
      'ValidationException',
      /StartTime must be before EndTime/,
    ],
    [
      'a name with a slash',
      { ScheduledActionName: 'a/b' },
      'ValidationException',
      /ScheduledActionName "a\/b" is invalid/,
    ],
    [
      'an unregistered target',
      { ResourceId: `endpoint/${EP}/variant/Other` },
      'ObjectNotFoundException',
      /No scalable target registered/,
    ],
  ])(
    'refuses %s as AWS names it (prevents accepting an action AWS would reject)',
    async (_, extra, name, message) => {
      await expect(
        put(
          (extra as { ScheduledActionName?: string }).ScheduledActionName ?? 'x',
          extra as Partial<PutScheduledActionCommandInput>,
        ),
      ).rejects.toMatchObject({
        name,
        message: expect.stringMatching(message),
      });
    },
  );
});

describe('firing', () => {
  it('at its time sets the target range and scales desired into it, as an activity naming the action (prevents a pre-scale that never happens)', async () => {
    await put('morning', { ScalableTargetAction: { MinCapacity: 3, MaxCapacity: 6 } });
    await at(T0 + 4 * MINUTE + 59_000);
    expect(h.capacity.describe(RID)?.desired).toBe(1);
    await at(T0 + 5 * MINUTE + 1_000);
    expect(h.capacity.describe(RID)?.desired).toBe(3);
    expect(await target()).toMatchObject({ MinCapacity: 3, MaxCapacity: 6 });
    const [act] = await activities();
    expect(act).toMatchObject({
      Description: 'Setting desired instance count to 3.',
      Cause: 'at 2027-01-15T08:05:00.000Z scheduled action name morning was triggered',
      StatusCode: 'InProgress',
    });
    // It fires once: the next tick the same day changes nothing.
    h.capacity.catchUp(RID);
    await at(T0 + 6 * MINUTE);
    expect(await activities()).toHaveLength(1);
  });

  it('a lower maximum scales desired in to it; a range that already holds desired records no activity', async () => {
    h.capacity.manualSet(RID, 4);
    await put('night', {
      Schedule: `at(2027-01-15T08:01:00)`,
      ScalableTargetAction: { MinCapacity: 0, MaxCapacity: 2 },
    });
    await put('wide', { Schedule: `at(2027-01-15T08:02:00)`, ScalableTargetAction: { MaxCapacity: 8 } });
    await at(T0 + 90_000);
    expect(h.capacity.describe(RID)?.desired).toBe(2);
    h.capacity.catchUp(RID);
    await at(T0 + 150_000);
    expect(await target()).toMatchObject({ MinCapacity: 0, MaxCapacity: 8 });
    expect((await activities()).map((a) => a.Cause)).toEqual([
      'at 2027-01-15T08:01:00.000Z scheduled action name night was triggered',
    ]);
  });

  it('does not fire while ScheduledScalingSuspended, nor catch up on resume (prevents a frozen measurement being resized)', async () => {
    await put('morning');
    await h.aas.send(
      new RegisterScalableTargetCommand({ ...KEY, SuspendedState: { ScheduledScalingSuspended: true } }),
    );
    await at(T0 + 6 * MINUTE);
    await h.aas.send(
      new RegisterScalableTargetCommand({ ...KEY, SuspendedState: { ScheduledScalingSuspended: false } }),
    );
    await at(T0 + 7 * MINUTE);
    expect(h.capacity.describe(RID)?.desired).toBe(1);
    expect(await activities()).toEqual([]);
    expect(await target()).toMatchObject({ MinCapacity: 1 });
  });

  it('a fired action whose minimum exceeds the target maximum fails as an activity and leaves the range (prevents an inverted range)', async () => {
    await put('too-high', { ScalableTargetAction: { MinCapacity: 6 } });
    await at(T0 + 5 * MINUTE);
    expect(await target()).toMatchObject({ MinCapacity: 1, MaxCapacity: 4 });
    const [act] = await activities();
    expect(act).toMatchObject({
      StatusCode: 'Failed',
      StatusMessage:
        'Failed to apply scheduled action too-high: the minimum capacity 6 would be greater than the maximum capacity 4.',
    });
  });
});
