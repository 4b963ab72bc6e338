/**
 * A tuned plan through the local SageMaker with the real SDK clients: `local apply` puts its
 * scheduled actions (PutScheduledAction) and its step scale-out (policy + alarm), reads them back
 * clean, deletes a scalegate scheduled action the plan no longer has, and `validate` names a
 * scheduled action changed on the endpoint by its row.
 */
import {
  DescribeScheduledActionsCommand,
  PutScheduledActionCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLocalApply } from '../../src/commands/local-apply.js';
import { compareWithPlan, runValidate } from '../../src/commands/validate.js';
import { differingRows } from '../../src/plan/policy-diff.js';
import { TUNED_POLICY } from '../helpers/tune-data.js';
import {
  type Emulator,
  editedCopy,
  emulatorPlanFile,
  MODEL,
  startEmulator,
  workspace,
} from './local-apply-fixtures.js';

let emulator: Emulator;
let dir: string;
let tunedPlanFile: string;
let onePlanFile: string;
let stepPlanFile: string;

const prefix = () => `scalegate-${emulator.handle.endpointName}-${emulator.handle.variantName}-`;

beforeAll(async () => {
  emulator = await startEmulator();
  dir = workspace('local-apply-tuned');
  const planFile = await emulatorPlanFile(emulator, dir);
  const tune = (json: Record<string, unknown>, actions: typeof TUNED_POLICY.scheduled_actions) => {
    const deployable = json.deployable as Record<string, unknown>;
    deployable.scheduled_actions = actions;
    deployable.step_scale_out = TUNED_POLICY.step_scale_out;
  };
  tunedPlanFile = editedCopy(planFile, dir, 'plan-tuned.json', (json) =>
    tune(json, TUNED_POLICY.scheduled_actions),
  );
  stepPlanFile = editedCopy(planFile, dir, 'plan-step.json', (json) => tune(json, []));
  onePlanFile = editedCopy(planFile, dir, 'plan-one.json', (json) =>
    tune(json, TUNED_POLICY.scheduled_actions.slice(0, 1)),
  );
});

afterAll(async () => {
  await emulator?.close();
});

beforeEach(() => emulator.handle.reset());

const deps = () => ({ clients: emulator.clients });
const input = (planFile: string) => ({
  modelName: MODEL,
  endpoint: emulator.handle.endpointName,
  variant: emulator.handle.variantName,
  region: emulator.handle.region,
  planFile,
  pollIntervalMs: 100,
});
const resourceId = () => `endpoint/${emulator.handle.endpointName}/variant/${emulator.handle.variantName}`;

async function scheduledNames(): Promise<string[]> {
  const out = await emulator.clients.autoscaling.send(
    new DescribeScheduledActionsCommand({
      ServiceNamespace: 'sagemaker',
      ResourceId: resourceId(),
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
    }),
  );
  return (out.ScheduledActions ?? []).map((a) => a.ScheduledActionName ?? '').sort();
}

describe('local apply of a tuned plan', () => {
  it('puts a step scale-out whose alarm invokes it, reads it back clean, and deletes it when the plan drops it (prevents a step policy deployed without its trigger, or outliving its plan)', async () => {
    const result = await runLocalApply(input(stepPlanFile), deps());
    expect(result.report).toMatch(/PutScalingPolicy step scale-out arn:/);
    expect(result.report).toContain(`${prefix()}step-scale-out`);
    expect(result.report).not.toContain('PutScheduledAction');
    const rows = result.artifact?.rows ?? [];
    expect(differingRows(rows)).toEqual([]);
    expect(rows.find((r) => r.parameter === 'step_scale_out.steps')?.deployed).toBe('0..4:+2; 4..:+5');
    expect(rows.find((r) => r.parameter === 'step_scale_out.alarm.threshold')?.deployed).toBe(8);
    const untuned = editedCopy(stepPlanFile, dir, 'plan-untuned.json', (json) => {
      delete (json.deployable as Record<string, unknown>).step_scale_out;
      delete (json.deployable as Record<string, unknown>).scheduled_actions;
    });
    const again = await runLocalApply(input(untuned), deps());
    expect(differingRows(again.artifact?.rows ?? [])).toEqual([]);
    expect((again.artifact?.rows ?? []).some((r) => r.parameter.startsWith('step_scale_out.'))).toBe(false);
  });

  it('puts the scheduled actions and the step scale-out, and reads every row back clean (prevents a tuned plan deploying only its target tracking)', async () => {
    const result = await runLocalApply(input(tunedPlanFile), deps());
    expect(result.report).toContain(`PutScheduledAction ${prefix()}morning-ramp, ${prefix()}night-floor`);
    expect(result.report).toMatch(/PutScalingPolicy step scale-out arn:/);
    expect(differingRows(result.artifact?.rows ?? [])).toEqual([]);
    const compared = (result.artifact?.rows ?? []).map((r) => r.parameter);
    expect(compared).toContain(`scheduled_action.${prefix()}night-floor.min_capacity`);
    expect(compared).toContain('step_scale_out.alarm.threshold');
    expect(result.exitCode).toBe(0);
    expect(await scheduledNames()).toEqual([`${prefix()}morning-ramp`, `${prefix()}night-floor`]);
  });

  it('deletes the scalegate scheduled action a newer plan no longer has, and no one else’s (prevents a stale pre-scaling outliving its plan)', async () => {
    await runLocalApply(input(tunedPlanFile), deps());
    await emulator.clients.autoscaling.send(
      new PutScheduledActionCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: resourceId(),
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        ScheduledActionName: 'team-own-action',
        Schedule: 'cron(0 1 * * ? *)',
        ScalableTargetAction: { MinCapacity: 1, MaxCapacity: 2 },
      }),
    );
    const result = await runLocalApply(input(onePlanFile), deps());
    expect(result.report).toContain(`DeleteScheduledAction ${prefix()}night-floor (no longer in the plan)`);
    expect(differingRows(result.artifact?.rows ?? [])).toEqual([]);
    expect(await scheduledNames()).toEqual([`${prefix()}morning-ramp`, 'team-own-action']);
  });
});

describe('a plan without scheduled actions', () => {
  it('deletes the ones an earlier tuned plan put, and validate names one put back as extra (prevents a stale pre-scaling going unseen after a re-plan)', async () => {
    await runLocalApply(input(tunedPlanFile), deps());
    const untuned = editedCopy(tunedPlanFile, dir, 'plan-plain.json', (json) => {
      delete (json.deployable as Record<string, unknown>).step_scale_out;
      delete (json.deployable as Record<string, unknown>).scheduled_actions;
    });
    const result = await runLocalApply(input(untuned), deps());
    expect(result.report).toContain(
      `DeleteScheduledAction ${prefix()}morning-ramp, ${prefix()}night-floor (no longer in the plan)`,
    );
    expect(differingRows(result.artifact?.rows ?? [])).toEqual([]);
    expect(await scheduledNames()).toEqual([]);
    await emulator.clients.autoscaling.send(
      new PutScheduledActionCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: resourceId(),
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        ScheduledActionName: `${prefix()}by-hand`,
        Schedule: 'cron(0 5 * * ? *)',
        ScalableTargetAction: { MinCapacity: 3, MaxCapacity: 9 },
      }),
    );
    const { artifact } = await compareWithPlan(input(untuned), deps());
    expect(differingRows(artifact.rows).map((r) => [r.parameter, r.verdict])).toEqual([
      [`scheduled_action.${prefix()}by-hand.schedule`, 'extra'],
      [`scheduled_action.${prefix()}by-hand.timezone`, 'extra'],
      [`scheduled_action.${prefix()}by-hand.min_capacity`, 'extra'],
      [`scheduled_action.${prefix()}by-hand.max_capacity`, 'extra'],
    ]);
  });
});

describe('validate of a tuned plan', () => {
  it('names a scheduled action changed on the endpoint by its row and AWS field (prevents validate passing a pre-scaling that is not the plan)', async () => {
    await runLocalApply(input(tunedPlanFile), deps());
    await emulator.clients.autoscaling.send(
      new PutScheduledActionCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: resourceId(),
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        ScheduledActionName: `${prefix()}morning-ramp`,
        Schedule: 'cron(30 7 * * ? *)',
        Timezone: 'UTC',
        ScalableTargetAction: { MinCapacity: 10, MaxCapacity: 500 },
      }),
    );
    const { artifact } = await compareWithPlan(input(tunedPlanFile), deps());
    expect(differingRows(artifact.rows)).toEqual([
      {
        parameter: `scheduled_action.${prefix()}morning-ramp.min_capacity`,
        expected: 40,
        deployed: 10,
        verdict: 'mismatch',
      },
    ]);
    const result = await runValidate({ ...input(tunedPlanFile), outFile: `${dir}/validate.json` }, deps());
    expect(result.exitCode).toBe(1);
    expect(result.report).toContain(`scheduled_action.${prefix()}morning-ramp.min_capacity`);
  });
});
