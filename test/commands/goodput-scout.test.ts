/**
 * The whole goodput command with its default start (a scout) against 2 slots x a fixed 40 ms
 * service (M/D/2) in simulated time, SLO 200 ms, as `npm run bench:goodput-small` runs it; and an
 * overloaded rung decided at the look that stopped it. Simulated time: exact, repeatable.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type GoodputInput, runGoodput } from '../../src/commands/goodput.js';
import { VirtualClock } from '../../src/load/clock.js';
import {
  type GoodputArtifact,
  goodputArtifactSchema,
  parseConfig,
  readArtifact,
} from '../../src/model/index.js';
import { inSimulatedTime } from '../helpers/simulated-time.js';
import { simulatedServer } from '../load/fixtures/simulated-server.js';

/** M/D/2 x 40 ms: p95 TTFAB reaches 200 ms at 41.64/s (bench:goodput-small, 2,000,000 arrivals a rate). */
const TRUTH = 41.64;

const dir = mkdtempSync(join(tmpdir(), 'scalegate-goodput-scout-'));
const configFile = join(dir, 'scalegate.config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    models: {
      small: {
        endpoint: 'small-test',
        region: 'us-east-1',
        instance_type: 'ml.g5.xlarge',
        image_uri:
          '123456789012.dkr.ecr.us-east-1.amazonaws.com/test@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        slo_ms: 200,
        surge_ratio: 1.25,
        peak_rps: 100,
      },
    },
  }),
);
const model = parseConfig(readFileSync(configFile, 'utf8'), configFile).models.small as GoodputInput['model'];

async function run(extra: Partial<GoodputInput>, out: string) {
  const clock = new VirtualClock();
  const server = simulatedServer({ clock, slots: 2, serviceMs: () => 40, firstAudioShare: 1 });
  const running = runGoodput(
    {
      modelName: 'small',
      model,
      configFile,
      endpoint: 'small-test',
      variant: 'AllTraffic',
      region: 'us-east-1',
      target: 'http://127.0.0.1:9',
      seed: 1,
      outFile: out,
      ...extra,
    },
    { createTransport: () => server, loadClock: clock },
  );
  const result = await inSimulatedTime(clock, running);
  return { result, minutes: clock.now() / 60_000 };
}

let scouted: Awaited<ReturnType<typeof run>>;
let overloaded: Awaited<ReturnType<typeof run>>;
const out = join(dir, 'goodput.json');

beforeAll(async () => {
  scouted = await run({}, out);
  overloaded = await run({ startRate: 64, maxRate: 64, resolution: 0.6 }, join(dir, 'overloaded.json'));
}, 120_000);

describe('goodput with the default start (a scout), M/D/2 x 40 ms, SLO 200 ms', () => {
  it('starts the ladder at the highest scout step within the SLO instead of 1/s (whose overflow bound alone needs 342 s), and measures the over step first above it', () => {
    const a = scouted.result.artifact as GoodputArtifact;
    expect(a.scout?.steps.map((s) => s.rate_rps)).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(a.scout?.steps.map((s) => s.over)).toEqual([false, false, false, false, false, false, true]);
    expect(a.scout).toMatchObject({ step_s: 5, start_rps: 32, over_rps: 64 });
    expect(a.ladder.start_rps).toBe(32);
    expect(a.rungs.map((g) => g.rate_rps).slice(0, 2)).toEqual([32, 64]);
    expect(scouted.result.report).toMatch(
      /^scout \(measured, 5 s steps, .*placement only, no verdict\): 1\/s [\d.]+ ms, .* 64\/s [\d.]+ ms \(over\); the ladder started at 32\/s, and measured 64\/s first above it/m,
    );
  });

  it('brackets lambda_max by a measured breach, at most the truth and within 20 % below it, in under 25 simulated minutes (60 without the scout; seed 1 reads -16 % in 20.8 minutes since slow-spell rungs take the 1.4 inflation)', () => {
    const a = scouted.result.artifact as GoodputArtifact;
    expect(a.lambda_max_bracketed).toBe(true);
    expect(a.lambda_max_rps as number).toBeLessThanOrEqual(TRUTH);
    expect(a.lambda_max_rps as number).toBeGreaterThanOrEqual(0.8 * TRUTH);
    expect(scouted.minutes).toBeLessThan(25);
    expect(goodputArtifactSchema.safeParse(readArtifact('goodput', out)).success).toBe(true);
  });
});

describe('an overloaded rung (64/s, 1.28 x capacity)', () => {
  it('is decided a fail at the 30 s look that stopped it: the replay counts what was in flight then as misses, as the live look did', () => {
    const a = overloaded.result.artifact as GoodputArtifact;
    const rung = a.rungs.find((g) => g.rate_rps === 64);
    expect(rung?.verdict).toBe('fail');
    expect(rung?.sequential?.stopped_at_s).toBe(30);
    expect(a.scout ?? null).toBeNull();
  });
});
