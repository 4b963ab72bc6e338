/**
 * The post entry (dist/post.mjs): after a qmax step killed mid-ladder (a cancelled job: the
 * runner kills the step, then runs the posts), the endpoint's scaling is put back exactly as it
 * was, from the thaw journal this step wrote; and only from that: a journal committed in the pull
 * request is never restored. Real SDK clients, the local SageMaker, the bundled entries.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  DescribeScalableTargetsCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  DescribeEndpointCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsClients } from '../../src/aws/clients.js';
import type { LocalSageMakerHandle } from '../../src/local/index.js';
import { readThawJournal, type ThawJournal, writeThawJournal } from '../../src/model/journal.js';
import { startTestEndpoint, type TestEndpoint } from '../helpers/local-endpoint.js';
import { makeWorkspace, runStep } from './run-action.js';

const ENDPOINT = 'speech-kokoro-82m';
const resourceId = `endpoint/${ENDPOINT}/variant/AllTraffic`;
/** The action freezes only a target whose scaling is not suspended (anything else needs --force on the CLI). */
const ORIGINAL = {
  DynamicScalingInSuspended: false,
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

/** Commits everything in `dir` (a checkout whose pull request carries these files). */
function commitAll(dir: string): void {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=pr@example.com', '-c', 'user.name=pr', ...args], {
      cwd: dir,
      stdio: 'ignore',
    });
  git('init', '-q');
  git('add', '-A', '-f');
  git('commit', '-q', '-m', 'a pull request');
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
    // The main step recorded the journal it was about to write (the post restores that one only).
    expect(JSON.parse(main.state.journals as string)).toEqual([
      {
        file: join(stateDir, `thaw-journal-${ENDPOINT}.json`),
        run_id: journal?.run_id,
        endpoint: ENDPOINT,
        variant: 'AllTraffic',
        region: 'local',
      },
    ]);
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
    expect(post.stdout).toMatch(
      /the journal on endpoint speech-kokoro-82m: run .*`scalegate qmax --model kokoro-82m/,
    );
    expect(post.stdout).toMatch(
      /::notice::scalegate restored speech-kokoro-82m's scaling after an interrupted qmax step/,
    );
    expect(await scalingState()).toEqual({ suspended: ORIGINAL, desired: 2 });
    expect(existsSync(join(stateDir, `thaw-journal-${ENDPOINT}.json`))).toBe(false);

    // Run again (a second post of the same job): nothing left to do, nothing changed.
    const again = await runStep({ entry: 'post', workspace, state: main.state, env: awsEnv });
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(
      /no thaw journal; endpoint\/speech-kokoro-82m\/variant\/AllTraffic is not suspended: nothing to do/,
    );
    expect(again.stdout).not.toMatch(/::notice::/);
    expect(await scalingState()).toEqual({ suspended: ORIGINAL, desired: 2 });
  }, 90_000);

  it('never restores a journal committed in .scalegate/ (the attack that turned unsuspended/desired 1 into suspended/desired 2)', async () => {
    await handle.waitFor((s) => s.status === 'InService' && s.current === s.desired);
    await clients.sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: ENDPOINT,
        DesiredWeightsAndCapacities: [{ VariantName: 'AllTraffic', DesiredInstanceCount: 1 }],
      }),
    );
    await handle.waitFor((s) => s.status === 'InService' && s.current === 1);
    expect(await scalingState()).toEqual({ suspended: ORIGINAL, desired: 1 });

    // The pull request commits a journal claiming the endpoint was suspended at desired 2.
    const workspace = makeWorkspace();
    const stateDir = join(workspace, '.scalegate');
    const forged: ThawJournal = {
      ...journalFor(ENDPOINT),
      scalable_target_registered: true,
      suspended_state: {
        dynamic_scaling_in_suspended: true,
        dynamic_scaling_out_suspended: true,
        scheduled_scaling_suspended: true,
      },
      desired_instance_count: 2,
      run_id: 'committed',
    };
    const file = writeThawJournal(forged, stateDir);
    commitAll(workspace);

    // The measuring step finds it where its own journal would go: refused before any change.
    const main = await runStep({
      entry: 'main',
      workspace,
      eventName: 'pull_request',
      inputs: { command: 'qmax', model: 'kokoro-82m', 'freeze-timeout-s': '60', comment: 'false' },
      env: awsEnv,
    });
    expect(main.status, main.stdout + main.stderr).toBe(2);
    expect(main.stdout + main.stderr).toMatch(/thaw journal from an earlier run .*still there/);
    expect(main.state.journals).toBeUndefined();
    const post = await runStep({ entry: 'post', workspace, state: main.state, env: awsEnv });
    expect(post.status, post.stdout + post.stderr).toBe(0);
    expect(post.stdout).toMatch(/this qmax step wrote no thaw journal: nothing to thaw/);
    expect(await scalingState()).toEqual({ suspended: ORIGINAL, desired: 1 });

    // Even a state naming that file and its run id (as if the run ids matched) does not read a tracked file.
    const named = await runStep({
      entry: 'post',
      workspace,
      state: {
        command: 'qmax',
        journals: JSON.stringify([
          { file, run_id: 'committed', endpoint: ENDPOINT, variant: 'AllTraffic', region: 'local' },
        ]),
      },
      env: awsEnv,
    });
    expect(named.status, named.stdout + named.stderr).toBe(0);
    expect(named.stdout).toMatch(/is tracked by git .*not read/);
    expect(await scalingState()).toEqual({ suspended: ORIGINAL, desired: 1 });
    expect(existsSync(file)).toBe(true);
  }, 90_000);

  it('a post after a step whose freeze ended normally restores nothing and changes nothing (no journal left)', async () => {
    const workspace = makeWorkspace();
    const post = await runStep({
      entry: 'post',
      workspace,
      state: {
        command: 'ttotal',
        journals: JSON.stringify([
          {
            file: join(workspace, '.scalegate', `thaw-journal-${ENDPOINT}.json`),
            run_id: 'finished',
            endpoint: ENDPOINT,
            variant: 'AllTraffic',
            region: 'local',
          },
        ]),
      },
      env: awsEnv,
    });
    expect(post.status, post.stdout + post.stderr).toBe(0);
    expect(post.stdout).toMatch(/nothing to do/);
    expect(post.stdout).not.toMatch(/::notice::/);
  }, 30_000);

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
    const file = writeThawJournal({ ...journalFor('speech-gone-calibration'), run_id: 'gone' }, stateDir);
    const post = await runStep({
      entry: 'post',
      workspace,
      state: {
        command: 'ttotal',
        'state-dir': stateDir,
        journals: JSON.stringify([
          {
            file,
            run_id: 'gone',
            endpoint: 'speech-gone-calibration',
            variant: 'AllTraffic',
            region: 'local',
          },
        ]),
      },
      env: awsEnv,
    });
    expect(post.status, post.stdout + post.stderr).toBe(0);
    expect(post.stdout).toMatch(/speech-gone-calibration no longer exists \(torn down\): nothing to restore/);
    expect(existsSync(file)).toBe(false);
  });
});

describe('an AWS command through the action (dist/main.mjs)', () => {
  it('runs drift against the same endpoint: a suspension flag left set is drift (exit 1), with its remediation in the summary', async () => {
    await clients.autoscaling.send(
      new RegisterScalableTargetCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: resourceId,
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        SuspendedState: { ...ORIGINAL, DynamicScalingInSuspended: true },
      }),
    );
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
