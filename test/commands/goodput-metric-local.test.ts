/**
 * goodput's per-rate CloudWatch join on the local SageMaker (real SDK clients) with the emulated
 * Kokoro-82M device at time scale 0.25 (one lane, 13.97 ms mean service, 71.6 requests/s): three
 * fixed Poisson rates, each rate's ConcurrentRequestsPerModel Maximum per 10 s recorded as its
 * metric level, and compared with the seeded queueing simulation of the same device at the same
 * rate (src/stats/in-flight-sim.ts).
 *
 * The comparison here is a gross one (the measured median inside the simulated 2 %..98 % range):
 * a test under two minutes holds two whole 10 s periods per rate, and the per-period Maximum is
 * spread wide (p90 / p10 ~ 1.6), so the median of two periods is known to +-25 % at best. The 10 %
 * agreement needs ~30 periods per rate: `npm run bench:metric-level` measures it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGoodput } from '../../src/commands/goodput.js';
import { clientConfigFor } from '../../src/local/index.js';
import { type GoodputArtifact, parseConfig, readArtifact } from '../../src/model/index.js';
import { kokoroDevice, startDeviceEndpoint } from '../helpers/local-endpoint.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TIME_SCALE = 0.25;
const dir = mkdtempSync(join(tmpdir(), 'scalegate-goodput-metric-'));
const promptsFile = join(dir, 'prompts.txt');
writeFileSync(promptsFile, 'Your order has shipped.\nGood morning!\n');
const configFile = join(dir, 'scalegate.config.json');
const configText = JSON.stringify({
  models: {
    'kokoro-emulated': {
      endpoint: 'speech-goodput-metric',
      region: 'local',
      instance_type: 'ml.g5.xlarge',
      container_dir: join(ROOT, 'infra/container'),
      slo_ms: 3000 * TIME_SCALE,
      surge_ratio: 1.25,
      peak_rps: 100,
    },
  },
});
writeFileSync(configFile, configText);
const model = parseConfig(configText, configFile).models['kokoro-emulated'];
const profile = kokoroDevice.profile;
const throughput = (profile.lanes * 1000) / (profile.service_mean_ms * TIME_SCALE);
// 60, 75 and 85 % of the device's throughput: simulated medians 6, 9 and 13 in flight.
const RATES = [0.6, 0.75, 0.85].map((s) => Number((s * throughput).toPrecision(3)));

let endpoint: Awaited<ReturnType<typeof startDeviceEndpoint>>;
beforeAll(async () => {
  endpoint = await startDeviceEndpoint({
    endpointName: 'speech-goodput-metric',
    instances: 1,
    timeScale: TIME_SCALE,
  });
}, 90_000);
afterAll(async () => {
  await endpoint?.close();
}, 60_000);

describe('goodput joins CloudWatch per rate on the local SageMaker (emulated Kokoro device)', () => {
  let artifact: GoodputArtifact;
  let report: string;
  const out = join(dir, 'goodput.json');

  beforeAll(async () => {
    const local = clientConfigFor(endpoint.handle);
    const result = await runGoodput(
      {
        modelName: 'kokoro-emulated',
        model: model as NonNullable<typeof model>,
        configFile,
        endpoint: 'speech-goodput-metric',
        variant: endpoint.handle.variantName,
        region: endpoint.handle.region,
        rates: RATES,
        // Aligned: each measure window is exactly two whole 10 s periods.
        holdS: 27,
        settleS: 7,
        seed: 1,
        promptsFile,
        outFile: out,
        stateDir: join(dir, 'state'),
        pollIntervalMs: 200,
        cloudwatchWaitS: 20,
      },
      {
        clients: endpoint.clients,
        handleSignals: false,
        loadClient: { endpoint: local.endpoint, credentials: local.credentials },
      },
    );
    expect(result.exitCode).toBe(0);
    artifact = result.artifact as GoodputArtifact;
    report = result.report;
  }, 150_000);

  it('records the metric level of every rate: whole periods of its measure window, median and spread, the open-loop R', () => {
    expect(artifact.cloudwatch).toEqual({ joined: true, error: null });
    expect(readArtifact('goodput', out).rungs.map((g) => g.metric_level?.periods)).toEqual([2, 2, 2]);
    for (const g of artifact.rungs) {
      const m = g.metric_level;
      expect(m).toMatchObject({ metric: 'ConcurrentRequestsPerModel', statistic: 'Maximum', period_s: 10 });
      if (!m) continue;
      // The schedule starts so the window after the settle begins on a period boundary.
      expect((Date.parse(g.started_at) + g.settle_s * 1000) % 10_000).toBe(0);
      expect(m.p10).toBeLessThanOrEqual(m.p50);
      expect(m.p50).toBeLessThanOrEqual(m.p90);
      expect(m.mean_in_flight).toBe(g.mean_in_system);
      expect(m.open_loop_r).toBeCloseTo(m.p50 / m.mean_in_flight, 2);
      // Random arrivals: the per-period maximum lies far above the mean in flight.
      expect(m.open_loop_r).toBeGreaterThan(2);
    }
  });

  it('shows the level per rate in the terminal report, labelled measured', () => {
    expect(report).toMatch(
      /metric level per rate \(measured: CloudWatch ConcurrentRequestsPerModel, Maximum per 10 s period/,
    );
    for (const rate of RATES) expect(report).toMatch(new RegExp(`^\\s*${rate}\\s+2\\s`, 'm'));
  });
});
