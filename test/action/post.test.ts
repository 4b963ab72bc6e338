/**
 * The post entry (dist/post.mjs): after a qmax step killed mid-ladder (a cancelled job: the
 * runner kills the step, then runs the posts), the endpoint's scaling is put back exactly as it
 * was, from the thaw journal. Real SDK clients, the local SageMaker, the bundled entries.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DescribeScalableTargetsCommand } from '@aws-sdk/client-application-auto-scaling';
import { DescribeEndpointCommand } from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsClients } from '../../src/aws/clients.js';
import type { LocalSageMakerHandle } from '../../src/local/index.js';
import { readThawJournal, type ThawJournal, writeThawJournal } from '../../src/model/journal.js';
import { startTestEndpoint, type TestEndpoint } from '../helpers/local-endpoint.js';
import { makeWorkspace, runStep } from './run-action.js';

const ENDPOINT = 'speech-kokoro-82m';
const resourceId = `endpoint/${ENDPOINT}/variant/AllTraffic`;
/** Deliberately not all-false: the post must restore these exact flags, not "unsuspend". */
const ORIGINAL = {
  DynamicScalingInSuspended: true,
  DynamicScalingOutSuspended: false,
  ScheduledScalingSuspended: false,
};

let endpoint: TestEndpoint | undefined;
let handle: LocalSageMakerHandle;
let clients: AwsClients;
let awsEnv: Record<string, string>;

beforeAll(async () => {
  endpoint = await startTestEndpoint({ endpointName: ENDPOINT, instances: 2 }, ORIGINAL);
  ({ handle, clients } = endpoint);
  awsEnv = {
    AWS_ENDPOINT_URL: handle.url,
    AWS_REGION: handle.region,
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  };
}, 90_000);

afterAll(async () => {
  await endpoint?.close();
}, 60_000);

function journalFor(endpoint: string): ThawJournal {
  return {
    schema_version: 1,
    kind: 'thaw-journal',
    endpoint,
    variant: 'AllTraffic',
    region: 'local',
    resource_id: `endpoint/${endpoint}/variant/AllTraffic`,
    scalable_target_registered: false,
    suspended_state: null,
    min_capacity: null,
    max_capacity: null,
    desired_instance_count: 3,
    started_at: '2026-11-29T10:00:00.000Z',
    pid: 999999,
    hostname: null,
    command: `scalegate qmax --endpoint ${endpoint}`,
    run_id: null,
  };
}

async function scalingState() {
  const target = await clients.autoscaling.send(
    new DescribeScalableTargetsCommand({ ServiceNamespace: 'sagemaker', ResourceIds: [resourceId] }),
  );
  const endpoint = await clients.sagemaker.send(new DescribeEndpointCommand({ EndpointName: ENDPOINT }));
  return {
    suspended: target.ScalableTargets?.[0]?.SuspendedState,
    desired: endpoint.ProductionVariants?.[0]?.DesiredInstanceCount,
  };
}

describe('the post step (dist/post.mjs)', () => {
  it('restores the endpoint’s scaling after a qmax step killed mid-ladder (a cancelled run never leaves production frozen)', async () => {
    expect(await scalingState()).toEqual({ suspended: ORIGINAL, desired: 2 });
    const workspace = makeWorkspace();

    const main = await runStep({
      entry: 'main',
      workspace,
      eventName: 'workflow_dispatch',
      inputs: {
        command: 'qmax',
        model: 'kokoro-82m',
        'hold-s': '60',
        'measure-s': '20',
        'freeze-timeout-s': '60',
      },
      env: awsEnv,
      // SIGKILL as soon as the first rung starts: no handler runs, nothing is restored by qmax itself.
      killWhen: /::group::run 1 rung 1: concurrency/,
      timeoutMs: 60_000,
    });
    expect(main.signal, main.stdout + main.stderr).toBe('SIGKILL');
    expect(main.state).toMatchObject({ command: 'qmax', 'state-dir': join(workspace, '.scalegate') });
    const stateDir = join(workspace, '.scalegate');
    const journal = readThawJournal(ENDPOINT, stateDir);
    expect(journal?.desired_instance_count).toBe(2);
    expect(await scalingState()).toEqual({
      suspended: {
        DynamicScalingInSuspended: true,
        DynamicScalingOutSuspended: true,
        ScheduledScalingSuspended: true,
      },
      desired: 1,
    });

    const post = await runStep({ entry: 'post', workspace, state: main.state, env: awsEnv });
    expect(post.status, post.stdout + post.stderr).toBe(0);
    expect(post.stdout).toMatch(/was left frozen by `scalegate qmax --model kokoro-82m/);
    expect(post.stdout).toMatch(
      /::notice::scalegate restored speech-kokoro-82m's scaling after an interrupted qmax step/,
    );
    expect(await scalingState()).toEqual({ suspended: ORIGINAL, desired: 2 });
    expect(existsSync(join(stateDir, `thaw-journal-${ENDPOINT}.json`))).toBe(false);

    // Run again (a second post of the same job): nothing left to do, nothing changed.
    const again = await runStep({ entry: 'post', workspace, state: main.state, env: awsEnv });
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/no thaw journal in .*: nothing was left frozen/);
    expect(await scalingState()).toEqual({ suspended: ORIGINAL, desired: 2 });
  }, 90_000);

  it('does nothing after a step that freezes nothing, even if a journal is lying around (a plan step never touches AWS)', async () => {
    const workspace = makeWorkspace();
    const stateDir = join(workspace, '.scalegate');
    const file = writeThawJournal(journalFor('speech-other'), stateDir);
    const post = await runStep({
      entry: 'post',
      workspace,
      state: { command: 'plan', 'state-dir': join(workspace, '.scalegate') },
      env: { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'local' },
    });
    expect(post.status).toBe(0);
    expect(post.stdout).toMatch(/the plan step freezes nothing: nothing to thaw/);
    expect(existsSync(file)).toBe(true);
  });

  it('drops the journal of an endpoint that no longer exists (a torn-down calibration endpoint is not an error)', async () => {
    const workspace = makeWorkspace();
    const stateDir = join(workspace, '.scalegate');
    const file = writeThawJournal(journalFor('speech-gone-calibration'), stateDir);
    const post = await runStep({
      entry: 'post',
      workspace,
      state: { command: 'ttotal', 'state-dir': stateDir },
      env: awsEnv,
    });
    expect(post.status, post.stdout + post.stderr).toBe(0);
    expect(post.stdout).toMatch(/speech-gone-calibration no longer exists \(torn down\): nothing to restore/);
    expect(existsSync(file)).toBe(false);
  });
});

describe('an AWS command through the action (dist/main.mjs)', () => {
  it('runs drift against the same endpoint: a suspension flag left set is drift (exit 1), with its remediation in the summary', async () => {
    const drift = await runStep({
      entry: 'main',
      workspace: makeWorkspace(),
      eventName: 'workflow_dispatch',
      inputs: { command: 'drift', model: 'kokoro-82m' },
      env: awsEnv,
    });
    expect(drift.status, drift.stdout + drift.stderr).toBe(1);
    expect(drift.outputs).toMatchObject({
      verdict: 'drift',
      'exit-code': '1',
      'artifact-path': 'artifacts/drift-kokoro-82m.json',
    });
    expect(drift.summary.split('\n')[0]).toBe('## 🛑 scalegate drift · kokoro-82m: **drift**');
    expect(drift.summary).toContain('### Checks');
    expect(drift.summary).toMatch(/\| 🛑 drift \| `[a-z_]+` \| .*suspend/);
  }, 30_000);
});
