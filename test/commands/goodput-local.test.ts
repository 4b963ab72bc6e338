/**
 * goodput against the local SageMaker with the reference TTS container, over the real SDK clients
 * and the lean InvokeEndpointWithResponseStream transport: it freezes the endpoint exactly as qmax
 * does (every scaling flag suspended, one instance) while the Poisson rungs run, restores exactly
 * what it found afterwards, and, as a CLI child process, restores on SIGTERM mid-rung (exit 143,
 * no artifact).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeScalableTargetsCommand } from '@aws-sdk/client-application-auto-scaling';
import { DescribeEndpointCommand } from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGoodput } from '../../src/commands/goodput.js';
import { runMerge } from '../../src/commands/merge.js';
import { clientConfigFor } from '../../src/local/index.js';
import { type GoodputArtifact, parseConfig, readArtifact } from '../../src/model/index.js';
import { thawJournalPath } from '../../src/model/journal.js';
import { startTestEndpoint, type TestEndpoint } from '../helpers/local-endpoint.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'scalegate-goodput-local-'));
const stateDir = join(dir, 'state');
const promptsFile = join(dir, 'prompts.txt');
writeFileSync(promptsFile, 'Hello.\nYes, thanks.\nGood morning.\n');
const configFile = join(dir, 'scalegate.config.json');
const configText = JSON.stringify({
  models: {
    'reference-tts': {
      endpoint: 'speech-reference-tts',
      region: 'local',
      instance_type: 'ml.g5.xlarge',
      container_dir: join(ROOT, 'infra/container'),
      slo_ms: 1000,
      surge_ratio: 1.25,
      peak_rps: 200,
    },
  },
});
writeFileSync(configFile, configText);
const model = parseConfig(configText, configFile).models['reference-tts'];
const ORIGINAL = {
  DynamicScalingInSuspended: false,
  DynamicScalingOutSuspended: true,
  ScheduledScalingSuspended: false,
};
const FROZEN = {
  DynamicScalingInSuspended: true,
  DynamicScalingOutSuspended: true,
  ScheduledScalingSuspended: true,
};

let endpoint: TestEndpoint;
beforeAll(async () => {
  endpoint = await startTestEndpoint(
    { endpointName: 'speech-reference-tts', instances: 2, quota: 4 },
    ORIGINAL,
  );
}, 90_000);
afterAll(async () => {
  await endpoint?.close();
}, 60_000);

/** Arrivals of the settle (discarded windows) of a rung: the windows also hold them. */
function countBeforeSettle(g: GoodputArtifact['rungs'][number]): number {
  const first = Math.ceil((g.settle_s * 1000) / g.histograms.window_ms);
  return g.histograms.windows.filter((w) => w.index < first).reduce((n, w) => n + w.offered, 0);
}

async function scaling() {
  const out = await endpoint.clients.autoscaling.send(
    new DescribeScalableTargetsCommand({ ServiceNamespace: 'sagemaker', ResourceIds: [endpoint.resourceId] }),
  );
  const ep = await endpoint.clients.sagemaker.send(
    new DescribeEndpointCommand({ EndpointName: 'speech-reference-tts' }),
  );
  return {
    suspended: out.ScalableTargets?.[0]?.SuspendedState,
    desired: ep.ProductionVariants?.[0]?.DesiredInstanceCount,
    current: ep.ProductionVariants?.[0]?.CurrentInstanceCount,
  };
}

describe('goodput on the local SageMaker (response-stream transport)', () => {
  let artifact: GoodputArtifact;
  let during: Awaited<ReturnType<typeof scaling>> | undefined;
  const out = join(dir, 'goodput.json');

  beforeAll(async () => {
    let probe: Promise<void> | null = null;
    const local = clientConfigFor(endpoint.handle);
    const result = await runGoodput(
      {
        modelName: 'reference-tts',
        model: model as NonNullable<typeof model>,
        configFile,
        endpoint: 'speech-reference-tts',
        variant: 'AllTraffic',
        region: endpoint.handle.region,
        rates: [4, 8],
        holdS: 6,
        settleS: 1,
        promptsFile,
        outFile: out,
        stateDir,
        pollIntervalMs: 200,
        // The original state has scale-out suspended on purpose (the restore must be exact).
        force: true,
      },
      {
        clients: endpoint.clients,
        handleSignals: false,
        loadClient: { endpoint: local.endpoint, credentials: local.credentials },
        progress: (e) => {
          if (e.type === 'rate-start' && e.index === 0 && e.rateRps === 4 && !probe) {
            probe = scaling().then((s) => {
              during = s;
            });
          }
        },
      },
    );
    await probe;
    expect(result.exitCode).toBe(0);
    artifact = result.artifact as GoodputArtifact;
  }, 150_000);

  it('freezes the endpoint while the rungs run: every suspension flag set, one instance', () => {
    expect(during).toEqual({ suspended: FROZEN, desired: 1, current: 1 });
    expect(artifact.frozen).toBe(true);
    expect(artifact.instance_counts_observed).toEqual([1]);
  });

  it('restores exactly what it found (flags and two instances) and deletes the thaw journal', async () => {
    expect((await scaling()).suspended).toEqual(ORIGINAL);
    expect((await scaling()).desired).toBe(2);
    expect(existsSync(thawJournalPath('speech-reference-tts', stateDir))).toBe(false);
    expect(artifact.restore?.errors).toEqual([]);
  });

  it('sends each rung on its Poisson schedule through the endpoint and records it from the intended send time', () => {
    expect(readArtifact('goodput', out).kind).toBe('goodput');
    expect(artifact.transport).toBe('response-stream');
    expect(artifact.fingerprint.region).toBe('local');
    for (const g of artifact.rungs) {
      expect(g.offered).toBeGreaterThan(0);
      expect(g.outcome_counts.ok).toBe(g.offered);
      expect(g.ttfab_p95_ms).toBeGreaterThan(0);
      expect(g.histograms.schedule.process).toBe('poisson');
      // The client is part of the measurement: what it did in each rung is recorded.
      expect(g.client_health?.wall_s).toBeGreaterThan(0);
      expect(g.client_health?.cpu_share).not.toBeNull();
      expect(g.client_health?.event_loop_delay_p99_ms).not.toBeNull();
      expect(g.client_health?.send_lag_p99_ms).not.toBeNull();
      expect(g.client_health?.dropped_arrivals).toBe(0);
      if (g.client_health?.healthy === false) expect(g.verdict).not.toBe('pass');
    }
    // Holds of a few seconds are far below what the coverage simulations validated.
    expect(artifact.validated_hold).toBe(false);
  });
});

describe('goodput shards against the local SageMaker', () => {
  const shardInput = (shard: string, startAt: string, out: string) => ({
    modelName: 'reference-tts',
    model: model as NonNullable<typeof model>,
    configFile,
    endpoint: 'speech-reference-tts',
    variant: 'AllTraffic',
    region: endpoint.handle.region,
    rates: [4, 8],
    holdS: 6,
    settleS: 1,
    rungGapS: 2,
    shard,
    startAt,
    promptsFile,
    outFile: out,
    stateDir,
    pollIntervalMs: 200,
    // The original state has scale-out suspended on purpose (the restore must be exact).
    force: true,
  });

  it('shard 0 freezes, shard 1 waits until it sees the freeze, both send their share of one schedule, and merge decides the whole', async () => {
    const local = clientConfigFor(endpoint.handle);
    const deps = {
      clients: endpoint.clients,
      handleSignals: false,
      loadClient: { endpoint: local.endpoint, credentials: local.credentials },
    };
    // Room for shard 0's preflight, claim and drain before the agreed start on a busy machine (10 s
    // ran out once beside the suite's other workers; nothing here is timed).
    const startAt = new Date(Date.now() + 30_000).toISOString();
    const [a, b] = [join(dir, 'shard-0.json'), join(dir, 'shard-1.json')];
    // Settled, not all: a shard that fails must not leave the other still measuring into the next test.
    const settled = await Promise.allSettled([
      runGoodput(shardInput('0/2', startAt, a), deps),
      runGoodput(shardInput('1/2', startAt, b), deps),
    ]);
    const [r0, r1] = settled.map((s) => {
      if (s.status === 'rejected') throw s.reason;
      return s.value;
    }) as [Awaited<ReturnType<typeof runGoodput>>, Awaited<ReturnType<typeof runGoodput>>];
    expect([r0.exitCode, r1.exitCode]).toEqual([0, 0]);
    expect((r0.artifact as GoodputArtifact).restore).not.toBeNull();
    expect((r1.artifact as GoodputArtifact).restore).toBeNull();
    const merged = runMerge({ files: [a, b], outFile: join(dir, 'merged.json') }).artifact as GoodputArtifact;
    expect(merged.decided).toBe(true);
    merged.rungs.forEach((g, j) => {
      // Both shards' clients, judged together.
      const h = [(r0.artifact as GoodputArtifact).rungs[j], (r1.artifact as GoodputArtifact).rungs[j]];
      expect(g.client_health?.healthy).toBe(h.every((x) => x?.client_health?.healthy));
      const s0 = (r0.artifact as GoodputArtifact).rungs[j];
      const s1 = (r1.artifact as GoodputArtifact).rungs[j];
      expect(g.offered).toBe((s0?.offered ?? 0) + (s1?.offered ?? 0));
      // The measure window's arrivals are the merged windows' after the settle.
      expect(g.offered).toBe(g.histograms.windows.reduce((n, w) => n + w.offered, 0) - countBeforeSettle(g));
    });
    expect((await scaling()).suspended).toEqual(ORIGINAL);
  }, 150_000);

  it('a shard other than 0 refuses to measure an endpoint nobody froze (exit 1 after the agreed start)', async () => {
    await expect(
      runGoodput(shardInput('1/2', new Date(Date.now() + 2500).toISOString(), join(dir, 'alone.json')), {
        clients: endpoint.clients,
        handleSignals: false,
      }),
    ).rejects.toThrow(/was not frozen at one instance before the agreed start; start shard 0/);
    expect(existsSync(join(dir, 'alone.json'))).toBe(false);
  }, 60_000);
});

describe('goodput under SIGTERM (CLI child process)', () => {
  it('stops the load mid-rung, restores the exact flags, deletes the journal, exits 143 and writes nothing', async () => {
    const out = join(dir, 'sigterm.json');
    const child: ChildProcess = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'src', 'cli.ts'),
        'goodput',
        '--config',
        configFile,
        '--rates',
        '5',
        '--hold-s',
        '120',
        '--settle-s',
        '1',
        '--prompts',
        promptsFile,
        '--out',
        out,
        // The original state has scale-out suspended on purpose (the restore must be exact).
        '--force',
      ],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          AWS_ENDPOINT_URL: endpoint.handle.url,
          AWS_REGION: 'local',
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
          SCALEGATE_STATE_DIR: stateDir,
          GITHUB_ACTIONS: '',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    const started = new Promise<void>((resolveStarted, reject) => {
      child.stderr?.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
        if (/rung 1: 5\/s Poisson/.test(stderr)) resolveStarted();
      });
      child.once('exit', () => reject(new Error(`exited before the rung started:\n${stderr}`)));
    });
    const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await started;
    expect((await scaling()).suspended).toEqual(FROZEN);
    child.kill('SIGTERM');
    expect(await exit, stderr).toBe(143);
    expect(stderr).toMatch(/SIGTERM: stopping the load and restoring the endpoint/);
    expect((await scaling()).suspended).toEqual(ORIGINAL);
    expect(existsSync(thawJournalPath('speech-reference-tts', stateDir))).toBe(false);
    expect(existsSync(out)).toBe(false);
  }, 90_000);
});
