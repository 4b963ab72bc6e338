/**
 * ttotal refuses, before touching the endpoint, every input it cannot measure with (exit 2, a
 * message that says what to do), and diagnoses a scale-out that never completes (exit 1) while
 * still restoring the endpoint. Local SageMaker, real SDK clients, the CLI in process.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UpdateEndpointWeightsAndCapacitiesCommand } from '@aws-sdk/client-sagemaker';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { describeScalableTarget } from '../../src/aws/scaling.js';
import { runPlan } from '../../src/commands/plan.js';
import { runTtotal } from '../../src/commands/ttotal.js';
import { progressLine } from '../../src/load/progress.js';
import { clientConfigFor } from '../../src/local/index.js';
import { thawJournalPath } from '../../src/model/journal.js';
import { runCli } from '../helpers/cli.js';
import {
  configFile,
  type Emulator,
  emulatorQmaxFile,
  MODEL,
  modelConfig,
  serialContainer,
  startEmulator,
  withEmulatorEnv,
  workspace,
} from './local-apply-fixtures.js';

let emulator: Emulator;
let dir: string;
let stateDir: string;
let restoreEnv: () => void;

beforeAll(async () => {
  emulator = await startEmulator({ registerScalableTarget: true, quota: 1, container: serialContainer });
  dir = workspace('ttotal-refusals');
  stateDir = join(dir, 'state');
});

afterAll(async () => {
  await emulator?.close();
});

beforeEach(() => {
  restoreEnv = withEmulatorEnv(emulator, stateDir);
});
afterEach(() => restoreEnv());

const resourceId = () => `endpoint/${emulator.handle.endpointName}/variant/${emulator.handle.variantName}`;

async function expectRefused(qmaxFile: string, extra: string[], ...messageParts: RegExp[]): Promise<string> {
  const before = await describeScalableTarget(emulator.clients.autoscaling, resourceId());
  const out = join(dir, 'ttotal-refused.json');
  const run = await runCli([
    'ttotal',
    '--config',
    configFile,
    '--model',
    MODEL,
    '--qmax',
    qmaxFile,
    '--out',
    out,
    ...extra,
  ]);
  expect(run.exitCode, run.stderr).toBe(2);
  for (const part of messageParts) expect(run.stderr).toMatch(part);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  // Refused before anything changed: no artifact, no journal, nothing suspended, fleet untouched.
  expect(existsSync(out)).toBe(false);
  expect(existsSync(thawJournalPath(emulator.handle.endpointName, stateDir))).toBe(false);
  expect((await describeScalableTarget(emulator.clients.autoscaling, resourceId()))?.suspended).toEqual(
    before?.suspended,
  );
  expect(emulator.handle.status()).toMatchObject({ desired: 1, current: 1 });
  return run.stderr;
}

describe('ttotal refusals (exit 2, nothing touched)', () => {
  it('refuses a qmax artifact measured on another image, saying how to re-measure or override', async () => {
    const qmax = await emulatorQmaxFile(emulator, dir, (q) => {
      (q.fingerprint as { image_digest: string }).image_digest = 'b'.repeat(64);
    });
    await expectRefused(
      qmax,
      ['--probe-concurrency', '10'],
      /was measured on another configuration than endpoint speech-kokoro-82m runs now/,
      /image digest: qmax measured bbbbbbbb/,
      /scalegate qmax --model kokoro-82m/,
      /--allow-config-mismatch/,
    );
  });

  it('refuses a ladder measured over another transport, naming the one to use', async () => {
    const qmax = await emulatorQmaxFile(emulator, dir, (q) => {
      q.transport = 'http';
    });
    await expectRefused(
      qmax,
      ['--probe-concurrency', '10'],
      /the ladder was measured over http, but ttotal probes over response-stream/,
      /--transport response-stream/,
    );
  });

  it('refuses a probe concurrency without usable rungs at N and N/2, listing the ones that work', async () => {
    const qmax = await emulatorQmaxFile(emulator, dir);
    await expectRefused(
      qmax,
      ['--probe-concurrency', '25'],
      /--probe-concurrency 25: the ladder in .* has no usable rung at 25/,
      // 30 and 50 by their N/2 read between the rungs around it (15: 10 and 20; 25: 20 and 30).
      /probe concurrencies that work: 10, 20, 30, 40, 50/,
    );
  });

  it('refuses a ladder with no usable N/N/2 pair at all when no probe concurrency is given', async () => {
    const qmax = await emulatorQmaxFile(emulator, dir, (q) => {
      for (const step of q.steps as { concurrency: number; usable: boolean }[]) {
        // Only 1 and 60 (above Q_max 50) left: no N/2 measured, none between two rungs.
        if (step.concurrency !== 1 && step.concurrency !== 60) step.usable = false;
      }
    });
    await expectRefused(
      qmax,
      [],
      /no probe concurrency N has usable rungs at both N and N\/2/,
      /--probe-concurrency N/,
    );
  });

  it('refuses without quota headroom for one more instance, with the numbers and the fix', async () => {
    const qmax = await emulatorQmaxFile(emulator, dir);
    await expectRefused(
      qmax,
      ['--probe-concurrency', '10'],
      /no quota headroom for one more ml\.g5\.xlarge: the quota "ml\.g5\.xlarge for endpoint usage" is 1 instances and 1 are in use \(speech-kokoro-82m\/AllTraffic: 1\); the run needs 2/,
      /Request a quota increase in Service Quotas \(Service Quotas L-1928E07B/,
    );
  });
});

describe('ttotal runs that do not go to plan', () => {
  let roomy: Emulator;
  beforeAll(async () => {
    roomy = await startEmulator({ registerScalableTarget: true, container: serialContainer });
  });
  afterAll(async () => {
    await roomy?.close();
  });

  const run = (
    qmaxFile: string,
    extra: Partial<Parameters<typeof runTtotal>[0]> = {},
    log: (line: string) => void = () => {},
  ) =>
    runTtotal(
      {
        modelName: MODEL,
        model: modelConfig(),
        endpoint: roomy.handle.endpointName,
        variant: roomy.handle.variantName,
        region: roomy.handle.region,
        qmaxFile,
        probeConcurrency: 10,
        settleS: 2,
        pollS: 0.25,
        maxWaitS: 30,
        stateDir: join(dir, 'roomy-state'),
        outFile: join(dir, `ttotal-${Math.random().toString(16).slice(2, 8)}.json`),
        ...extra,
      },
      {
        clients: roomy.clients,
        loadClient: clientConfigFor(roomy.handle),
        version: 'test',
        handleSignals: false,
        progress: (event) => {
          const line = progressLine(event);
          if (line !== null) log(line);
        },
      },
    );

  it('diagnoses a scale-out that never completes from the endpoint (exit 1) and still restores the endpoint', async () => {
    const qmax = await emulatorQmaxFile(roomy, dir);
    roomy.handle.faults = { failNextInstances: 1, failAtStage: 'weights_ready' };
    const result = await run(qmax);
    expect(result.exitCode).toBe(1);
    expect(result.artifact).toBeNull();
    expect(result.report).toMatch(/the scale-out did not complete, no T_total measured/);
    expect(result.report).toMatch(
      /rolled back \(desired is 1 again\): Failed to update endpoint: The primary container .* did not pass the ping health check/,
    );
    expect(result.report).toMatch(/FAIL_AT_STAGE=weights_ready/);
    expect(result.report).toMatch(/restored: .*suspension flags restored/);
    await roomy.handle.waitFor((s) => s.status === 'InService' && s.desired === 1 && s.current === 1);
    const target = await describeScalableTarget(
      roomy.clients.autoscaling,
      `endpoint/${roomy.handle.endpointName}/variant/${roomy.handle.variantName}`,
    );
    expect(target?.suspended).toEqual({
      dynamic_scaling_in_suspended: false,
      dynamic_scaling_out_suspended: false,
      scheduled_scaling_suspended: false,
    });
    expect(existsSync(thawJournalPath(roomy.handle.endpointName, join(dir, 'roomy-state')))).toBe(false);
  });

  it('ends at in_service when the probe never recovers: exit 1, T_total written and printed as a LOWER BOUND, the actual --recovery-factor in its messages; plan refuses it unless --allow-lower-bound', async () => {
    roomy.handle.faults = {};
    const qmax = await emulatorQmaxFile(roomy, dir);
    const lines: string[] = [];
    // A recovery target of 1 % of the ladder's p95 at N/2: no window can ever meet it.
    const result = await run(qmax, { recoveryFactor: 0.01, maxWaitS: 8 }, (l) => lines.push(l));
    expect(result.exitCode, result.report).toBe(1);
    expect(lines.join('\n')).toMatch(/recovery when p95 TTFAB <= 2\.9 ms \(ladder p95 at 5 x 0\.01\)/);
    const artifact = result.artifact;
    if (!artifact) throw new Error(`no artifact: ${result.report}`);
    expect(artifact.t_total_end_stage).toBe('in_service');
    expect(artifact.missing_stages).toContain('traffic_recovered');
    expect(artifact.settings?.recovery_target_factor).toBe(0.01);
    expect(result.report.split('\n')[0]).toMatch(
      /T_total [\d.]+ s \(desired_set -> in_service, LOWER BOUND: traffic never recovered\)/,
    );
    expect(result.report).toContain('(ladder p95 at N/2 x 0.01, --recovery-factor)');
    expect(result.report).not.toMatch(/x 1\.25/);
    const ttotalFile = result.written[0] as string;
    const plan = (allowLowerBound: boolean) =>
      runPlan(
        {
          modelName: MODEL,
          model: modelConfig(),
          qmaxFile: qmax,
          ttotalFile,
          allowLowerBound,
          outFile: join(dir, 'plan-lb.json'),
        },
        { version: 'test' },
      );
    expect(() => plan(false)).toThrow(/is only a LOWER BOUND .*--allow-lower-bound/);
    expect(existsSync(join(dir, 'plan-lb.json'))).toBe(false);
    const planned = plan(true);
    expect(planned.artifact?.measured.t_total_origin).toBe('lower-bound');
    expect(planned.report).toContain('T_total (LOWER BOUND');
    await roomy.handle.waitFor((s) => s.status === 'InService' && s.desired === 1 && s.current === 1);
  });

  it('measures with --allow-config-mismatch, warning and recording it, and restores a fleet of 2 to 2 (not to 1)', async () => {
    roomy.handle.faults = {};
    await roomy.clients.sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: roomy.handle.endpointName,
        DesiredWeightsAndCapacities: [{ VariantName: roomy.handle.variantName, DesiredInstanceCount: 2 }],
      }),
    );
    await roomy.handle.waitFor((s) => s.status === 'InService' && s.current === 2);
    const qmax = await emulatorQmaxFile(roomy, dir, (q) => {
      (q.fingerprint as { image_digest: string }).image_digest = 'c'.repeat(64);
    });
    const lines: string[] = [];
    const result = await run(qmax, { allowConfigMismatch: true }, (l) => lines.push(l));
    expect(result.exitCode, result.report).toBe(0);
    expect(lines.join('\n')).toMatch(
      /WARNING \(--allow-config-mismatch\): image digest: qmax measured cccccccc/,
    );
    expect(result.artifact?.config_mismatch_allowed).toBe(true);
    expect(result.artifact?.mismatch_warnings?.[0]).toMatch(
      /^image digest: qmax measured c{64}, endpoint speech-kokoro-82m runs /,
    );
    expect(result.artifact?.notes.join(' ')).toMatch(/configuration mismatch allowed/);
    // Recorded with the live fingerprint: the artifact says what it actually measured.
    expect(result.artifact?.fingerprint.image_digest).not.toBe('c'.repeat(64));
    expect(result.artifact?.policy_lag_bounded).toBe(true);
    // Frozen at one for the measurement, then put back to the two it had before the run.
    expect(result.artifact).toMatchObject({ from_instances: 1, to_instances: 2 });
    expect(result.artifact?.restore?.desired_instance_count).toBe(2);
    await roomy.handle.waitFor((s) => s.status === 'InService' && s.desired === 2 && s.current === 2);
  });
});

describe('ttotal --help', () => {
  it('describes recovery as the ladder p95 at N/2 x --recovery-factor (default 1.25), never a fixed factor', async () => {
    const help = await runCli(['ttotal', '--help']);
    expect(help.exitCode).toBe(0);
    const text = help.stdout.replace(/\s+/g, ' '); // commander wraps lines
    expect(text).toContain("falls to the ladder's p95 at N/2 x --recovery-factor)");
    expect(text).toMatch(/--recovery-factor <k> recovered when the probe p95 <= k x .*\(default: 1\.25\)/);
    expect(text).not.toMatch(/N\/2 x 1\.25/);
  });
});
