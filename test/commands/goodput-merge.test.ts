/**
 * `goodput --shard i/n` and `merge`: two shards of one seeded schedule against one server, merged,
 * against one process running the whole schedule against an identical server, in simulated time
 * (exact and repeatable): counts add exactly, windows align, percentiles come from the merged
 * histograms (equal within the histograms' 0.1 % precision), the verdicts agree. And every bad
 * merge is refused naming the file, with nothing written.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type GoodputInput, runGoodput } from '../../src/commands/goodput.js';
import { runMerge } from '../../src/commands/merge.js';
import { VirtualClock } from '../../src/load/clock.js';
import { type GoodputArtifact, isUsageError, parseConfig, readArtifact } from '../../src/model/index.js';
import { RELATIVE_PRECISION } from '../../src/stats/histograms.js';
import { runCli } from '../helpers/cli.js';
import { inflateBomb } from '../helpers/hdr-bomb.js';
import { simulatedServer } from '../load/fixtures/simulated-server.js';

const dir = mkdtempSync(join(tmpdir(), 'scalegate-goodput-merge-'));
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
        slo_ms: 40,
        surge_ratio: 1.25,
        peak_rps: 100,
      },
    },
  }),
);
const model = parseConfig(readFileSync(configFile, 'utf8'), configFile).models[
  'test-tts'
] as GoodputInput['model'];
const T0 = Date.parse('2026-11-30T12:00:00.000Z');
const START = '2026-11-30T12:00:10.000Z';

const input = (overrides: Partial<GoodputInput>): GoodputInput => ({
  modelName: 'test-tts',
  model,
  configFile,
  endpoint: 'speech-test',
  variant: 'AllTraffic',
  region: 'us-east-1',
  target: 'http://127.0.0.1:9',
  rates: [60, 150],
  holdS: 120,
  settleS: 10,
  seed: 7,
  startAt: START,
  ...overrides,
});

/** Runs commands on one virtual clock (one simulated 2-slot server, 10 ms each) until they resolve. */
async function simulated<T>(runs: (deps: Parameters<typeof runGoodput>[1]) => Promise<T>[]): Promise<T[]> {
  const clock = new VirtualClock();
  const server = simulatedServer({ clock, slots: 2, serviceMs: () => 10, firstAudioShare: 0.25 });
  const all = Promise.all(
    runs({ createTransport: () => server, loadClock: clock, now: () => T0 + clock.now() }),
  );
  let done = false;
  all.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  while (!done) {
    await clock.run();
    await new Promise((r) => setImmediate(r));
  }
  return all;
}

const single = join(dir, 'single.json');
const shard0 = join(dir, 'shard0.json');
const shard1 = join(dir, 'shard1.json');
const shard1OtherSeed = join(dir, 'shard1-seed8.json');
const merged = join(dir, 'merged.json');
let one: GoodputArtifact;
let both: GoodputArtifact;

beforeAll(async () => {
  const [first] = await simulated((deps) => [runGoodput(input({ outFile: single }), deps)]);
  one = first?.artifact as GoodputArtifact;
  await simulated((deps) => [
    runGoodput(input({ shard: '0/2', outFile: shard0 }), deps),
    runGoodput(input({ shard: '1/2', outFile: shard1 }), deps),
  ]);
  await simulated((deps) => [runGoodput(input({ shard: '1/2', seed: 8, outFile: shard1OtherSeed }), deps)]);
  both = runMerge({ files: [shard0, shard1], outFile: merged }).artifact as GoodputArtifact;
}, 120_000);

describe('goodput shards merged vs one process on the same seeded schedule', () => {
  it('a shard file decides nothing: its verdicts are pending until the merge', () => {
    const s = readArtifact('goodput', shard0);
    expect(s.decided).toBe(false);
    expect(s.lambda_max_rps).toBeNull();
    expect(s.rungs.every((g) => g.verdict === 'pending')).toBe(true);
  });

  it('counts add exactly: every arrival and outcome of the single run, once', () => {
    const s0 = readArtifact('goodput', shard0);
    const s1 = readArtifact('goodput', shard1);
    both.rungs.forEach((g, j) => {
      const whole = one.rungs[j] as (typeof one.rungs)[number];
      expect(g.offered).toBe(whole.offered);
      expect(g.offered).toBe((s0.rungs[j]?.offered ?? 0) + (s1.rungs[j]?.offered ?? 0));
      expect(g.outcome_counts).toEqual(whole.outcome_counts);
      expect(g.histograms.windows.map((w) => [w.index, w.offered])).toEqual(
        whole.histograms.windows.map((w) => [w.index, w.offered]),
      );
    });
  });

  it('the merged p95 equals the single-process p95 within the histogram precision, and the verdicts agree', () => {
    both.rungs.forEach((g, j) => {
      const whole = one.rungs[j] as (typeof one.rungs)[number];
      expect(Math.abs((g.ttfab_p95_ms as number) - (whole.ttfab_p95_ms as number))).toBeLessThanOrEqual(
        2 * RELATIVE_PRECISION * (whole.ttfab_p95_ms as number),
      );
      expect(g.verdict).toBe(whole.verdict);
    });
    expect(both.lambda_max_rps).toBe(one.lambda_max_rps);
    expect(both.decided).toBe(true);
    expect(both.shards).toEqual([
      { index: 0, count: 2 },
      { index: 1, count: 2 },
    ]);
  });
});

describe('the client is part of the measurement', () => {
  it("a rate that passed is undecided after the merge when one shard's client could not keep its schedule, naming the shard (a starved client never passes a rung)", () => {
    const starved = readArtifact('goodput', shard1);
    const sick = join(dir, 'shard1-starved.json');
    writeFileSync(
      sick,
      JSON.stringify({
        ...starved,
        rungs: starved.rungs.map((g) => ({
          ...g,
          client_health: {
            wall_s: 20,
            event_loop_delay_p99_ms: 12,
            cpu_share: 0.4,
            send_lag_p99_ms: 500,
            dropped_arrivals: 0,
            healthy: false,
            reasons: ['send lag p99 500.0 ms > 10 % of the SLO'],
          },
        })),
      }),
    );
    const m = runMerge({ files: [shard0, sick], outFile: join(dir, 'merged-starved.json') })
      .artifact as GoodputArtifact;
    const passed = both.rungs.map((g, j) => [g, m.rungs[j]] as const).filter(([g]) => g.verdict === 'pass');
    expect(passed.length).toBeGreaterThan(0);
    for (const [, g] of passed) {
      expect(g?.verdict).toBe('undecided');
      expect(g?.reason).toContain('shard 1: send lag p99 500.0 ms');
      expect(g?.client_health?.healthy).toBe(false);
    }
    // Failing rates stay failing: a late client cannot turn a breach into a pass.
    both.rungs.forEach((g, j) => {
      if (g.verdict === 'fail') expect(m.rungs[j]?.verdict).toBe('fail');
    });
  });
});

describe('merge refuses what is not one run (exit 2, naming the file, nothing written)', () => {
  const refused = async (files: string[], pattern: RegExp) => {
    const out = join(dir, `refused-${Math.random().toString(36).slice(2)}.json`);
    const run = await runCli(['merge', ...files, '--out', out]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(pattern);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  };

  it('shards that do not cover 0..n-1', () => refused([shard0], /shards 1\/2 are missing/));

  it('shards that disagree on the schedule seed, naming the file', () =>
    refused([shard0, shard1OtherSeed], new RegExp(`${shard1OtherSeed}: schedule seed 8, .* seed 7`)));

  it('artifacts of different fingerprints, naming the file', async () => {
    const other = join(dir, 'shard1-other-instance.json');
    const a = JSON.parse(readFileSync(shard1, 'utf8'));
    a.fingerprint.instance_type = 'ml.g5.2xlarge';
    writeFileSync(other, JSON.stringify(a));
    await refused([shard0, other], new RegExp(`${other}: measured on g52xlarge-01234567`));
  });

  it('a whole run given alone (nothing to merge)', () => refused([single], /is a whole run already/));

  it('a shard given twice', () => refused([shard0, shard0], /shard 0\/2 is also in/));

  it('a shard carrying a histogram bomb (40 MB of zeros in 50 kB), naming the rung, window and series', async () => {
    const bombed = join(dir, 'shard1-bomb.json');
    const a = JSON.parse(readFileSync(shard1, 'utf8'));
    a.rungs[1].histograms.windows[2].latency_sent = inflateBomb(40 * 1024 * 1024);
    writeFileSync(bombed, JSON.stringify(a));
    await refused(
      [shard0, bombed],
      /shard1-bomb\.json: invalid goodput artifact:\n {2}- rungs\.1\.histograms\.windows\.2\.latency_sent\.data: inflates to more than \d+ bytes/,
    );
  });

  it('throws a UsageError in-process too (the action and the CLI share it)', () => {
    try {
      runMerge({ files: [shard0] });
      expect.unreachable();
    } catch (e) {
      expect(isUsageError(e)).toBe(true);
    }
  });
});
