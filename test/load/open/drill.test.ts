/**
 * The drill's load in simulated time (exact and repeatable): the phases as one schedule, shards
 * that together send exactly the single-process schedule, and their merge, which must equal what
 * one process recorded; and the merge's refusals of shards that are not of one drill.
 */
import { describe, expect, it } from 'vitest';
import { completeDrill, mergeDrillShards } from '../../../src/analysis/drill-merge.js';
import { VirtualClock } from '../../../src/load/clock.js';
import { type DrillLoadResult, runDrillLoad } from '../../../src/load/open/drill.js';
import type { DrillPhase, DrillShardArtifact } from '../../../src/model/index.js';
import { isUsageError } from '../../../src/model/index.js';
import { RELATIVE_PRECISION } from '../../../src/stats/histograms.js';
import { drillData, observerWith } from '../../helpers/drill-data.js';
import { simulatedServer } from '../fixtures/simulated-server.js';

const PHASES: DrillPhase[] = [
  { name: 'steady', start_s: 0, end_s: 20, rate_rps: 40, rate_source: 'computed: test' },
  { name: 'surge', start_s: 20, end_s: 40, rate_rps: 90, rate_source: 'computed: test' },
  { name: 'trough', start_s: 40, end_s: 50, rate_rps: 5, rate_source: 'chosen: test' },
];
const START_WALL = '2026-11-30T12:00:00.000Z';

/** One run of the schedule split over `shards` engines sharing one simulated 4-slot server. */
async function run(shards: number, seed = 7): Promise<DrillLoadResult[]> {
  const clock = new VirtualClock();
  const server = simulatedServer({ clock, slots: 4, serviceMs: (b) => 30 + (b.length % 3) * 10 });
  const bodies = ['a', 'bb', 'ccc'].map((t) => Buffer.from(JSON.stringify({ text: t })));
  const runs = Array.from({ length: shards }, (_, index) =>
    runDrillLoad({
      phases: PHASES,
      seed,
      shard: { index, count: shards },
      startAt: 1000,
      startAtWall: START_WALL,
      windowMs: 10_000,
      sloMs: 300,
      transport: server,
      bodies,
      requestTimeoutMs: 10_000,
      maxOutstanding: 10_000,
      clock,
    }),
  );
  await clock.run();
  return Promise.all(runs);
}

function shardArtifact(load: DrillLoadResult, index: number, count: number, seed = 7): DrillShardArtifact {
  const data = drillData({ windows: [], observer: index === 0 ? observerWith({ breachS: 20 }) : null });
  return {
    ...data,
    phases: PHASES,
    settings: { ...data.settings, seed },
    histograms: load.histograms,
    load_seconds: load.seconds,
    failures: load.failures,
    kind: 'drill-shard',
    shard: { index, count },
  };
}

describe('the drill schedule', () => {
  it('sends the phases at their rates: arrivals per phase within Poisson noise of rate x length (prevents a surge that is not k times the steady load)', async () => {
    const [single] = (await run(1)) as [DrillLoadResult];
    const perPhase = PHASES.map((p) =>
      single.seconds.filter((s) => s.t >= p.start_s && s.t < p.end_s).reduce((n, s) => n + s.offered, 0),
    );
    PHASES.forEach((p, i) => {
      const expected = p.rate_rps * (p.end_s - p.start_s);
      // 4 standard deviations of a Poisson count.
      expect(Math.abs((perPhase[i] as number) - expected)).toBeLessThan(4 * Math.sqrt(expected));
    });
    expect(single.histograms.schedule.process).toBe('poisson');
    expect(single.seconds.reduce((n, s) => n + s.offered, 0)).toBe(single.histograms.schedule.arrivals);
  });
});

describe('shards merged equal one process', () => {
  it('two shards of one schedule, merged, carry exactly the single-process counts per window and second, and its p95 within HDR precision (prevents a merge that loses or double-counts requests)', async () => {
    const [single] = (await run(1)) as [DrillLoadResult];
    const shards = await run(2);
    const failed = (count: number, first_t: number) => [
      { outcome: 'server_5xx', error: 'InternalFailure: boom', count, first_t },
    ];
    const merged = mergeDrillShards(
      shards.map((load, index) => ({
        source: `shard-${index}.json`,
        data: { ...shardArtifact(load, index, 2), failures: failed(index + 2, 30 - index) },
      })),
    );
    // Failures of one kind add up, first seen at the earliest.
    expect(merged.failures).toEqual([
      { outcome: 'server_5xx', error: 'InternalFailure: boom', count: 5, first_t: 29 },
    ]);
    const alone = completeDrill(
      {
        ...drillData({ windows: [], observer: observerWith({ breachS: 20 }) }),
        phases: PHASES,
        histograms: single.histograms,
        load_seconds: single.seconds,
      },
      [{ index: 0, count: 1 }],
      'single',
    );
    expect(merged.shards).toEqual([
      { index: 0, count: 2 },
      { index: 1, count: 2 },
    ]);
    // Every request of the schedule, in the same window, once.
    expect(merged.histograms.windows.map((w) => [w.index, w.offered, w.sent, w.outcome_counts])).toEqual(
      single.histograms.windows.map((w) => [w.index, w.offered, w.sent, w.outcome_counts]),
    );
    expect(merged.load_seconds).toEqual(single.seconds);
    for (const [i, w] of merged.analysis.windows.entries()) {
      const s = alone.analysis.windows[i];
      expect(w.offered).toBe(s?.offered);
      const expected = s?.p95_ms as number;
      expect(Math.abs((w.p95_ms as number) - expected)).toBeLessThanOrEqual(
        expected * RELATIVE_PRECISION + 1e-3,
      );
    }
    expect(merged.verdict).toBe(alone.verdict);
    // The shards together sent the whole schedule, each shard about half.
    const sent = shards.map((s) => s.summary.sent);
    expect((sent[0] as number) + (sent[1] as number)).toBe(single.summary.sent);
    expect(Math.abs((sent[0] as number) - (sent[1] as number))).toBeLessThanOrEqual(1);
  });
});

describe('merge refusals (exit 2, naming the file)', () => {
  const refusal = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      if (isUsageError(e)) return e.message;
      throw e;
    }
    throw new Error('not refused');
  };

  it('refuses shards of another drill, a missing shard, and a shard 0 that did not observe (prevents merging what is not one drill)', async () => {
    const shards = await run(2);
    const zero = shardArtifact(shards[0] as DrillLoadResult, 0, 2);
    const one = shardArtifact(shards[1] as DrillLoadResult, 1, 2);
    expect(
      refusal(() =>
        mergeDrillShards([
          { source: 'a.json', data: zero },
          { source: 'b.json', data: { ...one, plan_run_id: 'another-plan' } },
        ]),
      ),
    ).toMatch(
      /^b\.json: drilled plan run "another-plan", a\.json "plan-run-1": these are shards of different drills/,
    );
    expect(
      refusal(() =>
        mergeDrillShards([
          { source: 'a.json', data: zero },
          { source: 'b.json', data: { ...one, settings: { ...one.settings, seed: 8 } } },
        ]),
      ),
    ).toMatch(/^b\.json: settings .* these are shards of different drills/);
    expect(refusal(() => mergeDrillShards([{ source: 'a.json', data: zero }]))).toMatch(
      /shards 1\/2 are missing/,
    );
    expect(
      refusal(() =>
        mergeDrillShards([
          { source: 'a.json', data: { ...zero, observer: null } },
          { source: 'b.json', data: one },
        ]),
      ),
    ).toMatch(/shard 0 \(a\.json\) carries no observation of the endpoint/);
    expect(
      refusal(() =>
        mergeDrillShards([
          { source: 'a.json', data: zero },
          { source: 'c.json', data: zero },
        ]),
      ),
    ).toMatch(/shard 0\/2 is also in a\.json/);
  });

  it('refuses shards whose schedules differ even when their settings were edited to agree (prevents a forged merge)', async () => {
    const seven = await run(2, 7);
    const eight = await run(2, 8);
    expect(
      refusal(() =>
        mergeDrillShards([
          { source: 'a.json', data: shardArtifact(seven[0] as DrillLoadResult, 0, 2) },
          { source: 'b.json', data: shardArtifact(eight[1] as DrillLoadResult, 1, 2, 7) },
        ]),
      ),
    ).toMatch(/^b\.json: follows another schedule than a\.json/);
  });
});
