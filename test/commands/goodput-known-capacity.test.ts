/**
 * The whole goodput command (ladder, open-loop engine, HDR windows, decision, artifact) against a
 * server of known capacity in simulated time: 4 slots x a fixed 100 ms service (M/D/4), Poisson
 * arrivals, first audio when the service ends. The true rate at which its p95 TTFAB reaches the SLO
 * comes from long runs of an independent simulator (src/stats/open-loop-sim.ts, 2,000,000
 * arrivals per rate, bisection to 0.1 %); the measured lambda_max must lie within 5 % below it
 * and be bracketed by a measured breach above it. Simulated time: exact, repeatable, no sleeping.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type GoodputInput, runGoodput } from '../../src/commands/goodput.js';
import { VirtualClock } from '../../src/load/clock.js';
import { progressLine } from '../../src/load/progress.js';
import {
  type GoodputArtifact,
  goodputArtifactSchema,
  parseConfig,
  readArtifact,
} from '../../src/model/index.js';
import { trueRateAtSlo } from '../../src/stats/open-loop-sim.js';
import { inSimulatedTime } from '../helpers/simulated-time.js';
import { simulatedServer } from '../load/fixtures/simulated-server.js';

const SLOTS = 4;
const SERVICE_MS = 100;
const SLO_MS = 800;

const dir = mkdtempSync(join(tmpdir(), 'scalegate-goodput-md4-'));
const configFile = join(dir, 'scalegate.config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    models: {
      'test-tts': {
        endpoint: 'speech-test',
        region: 'us-east-1',
        instance_type: 'ml.g5.xlarge',
        image_uri:
          '123456789012.dkr.ecr.us-east-1.amazonaws.com/test@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        slo_ms: SLO_MS,
        surge_ratio: 1.25,
        peak_rps: 100,
      },
    },
  }),
);
const model = parseConfig(readFileSync(configFile, 'utf8'), configFile).models[
  'test-tts'
] as GoodputInput['model'];

let truth: number;
let artifact: GoodputArtifact;
const out = join(dir, 'goodput.json');
const lines: string[] = [];

beforeAll(async () => {
  truth = trueRateAtSlo({ slots: SLOTS, meanServiceMs: SERVICE_MS, serviceCv: 0 }, SLO_MS, {
    arrivals: 2_000_000,
  }) as number;
  const clock = new VirtualClock();
  const server = simulatedServer({ clock, slots: SLOTS, serviceMs: () => SERVICE_MS, firstAudioShare: 1 });
  const result = await inSimulatedTime(
    clock,
    runGoodput(
      {
        modelName: 'test-tts',
        model,
        configFile,
        endpoint: 'speech-test',
        variant: 'AllTraffic',
        region: 'us-east-1',
        target: 'http://127.0.0.1:9',
        startRate: 10,
        maxRate: 80,
        resolution: 0.03,
        holdS: 1200,
        settleS: 60,
        outFile: out,
      },
      {
        createTransport: () => server,
        loadClock: clock,
        progress: (e) => {
          const line = progressLine(e);
          if (line !== null) lines.push(line);
        },
      },
    ),
  );
  artifact = result.artifact as GoodputArtifact;
}, 300_000);

describe('goodput against a server of known capacity (M/D/4, 100 ms, SLO 800 ms, simulated time)', () => {
  it('finds lambda_max within 5 % below the true rate at which p95 TTFAB reaches the SLO, bracketed by a measured breach', () => {
    console.log(
      `true rate at the SLO ${truth.toFixed(2)}/s (long simulation); lambda_max ${artifact.lambda_max_rps}/s, breach ${artifact.breach_rate_rps}/s`,
    );
    expect(artifact.lambda_max_bracketed).toBe(true);
    expect(artifact.lambda_max_rps as number).toBeLessThanOrEqual(truth * 1.005);
    expect(artifact.lambda_max_rps as number).toBeGreaterThanOrEqual(truth * 0.95);
    expect(artifact.breach_rate_rps as number).toBeGreaterThan(truth * 0.995);
  });

  it('decides the overloaded rung a fail on the queue the SLO allows, where the measured queue (still growing) would leave it undecided', () => {
    const breach = artifact.rungs.find((g) => g.rate_rps === artifact.breach_rate_rps);
    expect(breach?.verdict).toBe('fail');
    expect(breach?.reason).toMatch(/enough only to refute the SLO .* above the 800 ms SLO/);
  });

  it('writes a schema-valid, fingerprinted artifact that reads back, with every rung decided from its windows', () => {
    expect(goodputArtifactSchema.safeParse(readArtifact('goodput', out)).success).toBe(true);
    expect(artifact.decided).toBe(true);
    for (const g of artifact.rungs) {
      expect(g.histograms.windows.length).toBeGreaterThan(0);
      expect(g.offered).toBeGreaterThan(0);
    }
  });

  it('reports progress: a line per rung start and end', () => {
    expect(lines.filter((l) => /^rung \d+: .*Poisson for/.test(l))).toHaveLength(artifact.rungs.length);
    expect(lines.filter((l) => /^rung \d+: .* (pass|fail|undecided): p95 TTFAB/.test(l))).toHaveLength(
      artifact.rungs.length,
    );
  });
});
