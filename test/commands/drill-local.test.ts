/**
 * A 2-shard drill on the local SageMaker (emulated Kokoro-82M device, real SDK clients, the
 * plan's policy applied with `local apply`): the two shards run as separate drills sharing
 * --start-at, shard 0 observing the endpoint; `scalegate drill merge` judges the whole.
 *
 * The steady load sits below the target (--steady-rps) so that the surge, from a busy endpoint,
 * starts the scale-out: its alarm then waits for its whole evaluation (3 datapoints of 10 s), and
 * the measured lag must agree with that configuration. The merged drill must carry exactly what
 * one process recording every request of both shards saw.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDrill } from '../../src/commands/drill.js';
import { scheduleOffsets } from '../../src/load/open/arrivals.js';
import { drillArrivalSpec } from '../../src/load/open/drill.js';
import type { OpenLoopRecord } from '../../src/load/open/open-loop.js';
import { type DrillShardArtifact, readArtifact } from '../../src/model/index.js';
import { RELATIVE_PRECISION } from '../../src/stats/histograms.js';
import { runCli } from '../helpers/cli.js';
import {
  applyPlan,
  drillDeps,
  drillInput,
  kokoroPlanFile,
  startKokoroEmulator,
  TIME_SCALE,
} from './drill-fixtures.js';
import type { Emulator } from './local-apply-fixtures.js';
import { workspace } from './local-apply-fixtures.js';

let emulator: Emulator;
let dir: string;
let planFile: string;

beforeAll(async () => {
  emulator = await startKokoroEmulator();
  dir = workspace('drill-local');
  // The seed's closed-loop rule: its plan predicts the overflow a 2x surge brings (the drill must
  // still fail it), and its target 37.5 leaves the steady phase below the target.
  planFile = await kokoroPlanFile(emulator, dir, 'plan.json', 'seed');
  await applyPlan(emulator, planFile);
});

afterAll(async () => {
  await emulator?.close();
});

/** The emulator evaluates alarms every second: its "publication delay" is at most that. */
const EVALUATION_INTERVAL_S = 1;

describe('a 2-shard drill on the local SageMaker, merged', () => {
  it('measures the policy lag the alarm configuration gives (3 x 10 s + evaluation), fails the SLO the surge broke while the plan predicted it (exit 1), and merges to exactly what one process saw (prevents a lag, a verdict or a merge that does not hold on a real endpoint)', {
    timeout: 240_000,
  }, async () => {
    const prompts = join(dir, 'prompts.txt');
    // Two short texts: a new instance's first request for each text waits for its synthesis.
    writeFileSync(prompts, 'Your order has shipped.\nGood morning!\n');
    const startAt = new Date(Math.ceil((Date.now() + 10_000) / 10_000) * 10_000).toISOString();
    const x = 17.9 / TIME_SCALE;
    const input = {
      ...drillInput(emulator, planFile, dir),
      steadyRps: 0.55 * x,
      surgeRatio: 2,
      steadyS: 20,
      surgeS: 50,
      troughS: 5,
      windowS: 5,
      promptsFile: prompts,
      startAt,
    };
    const records: OpenLoopRecord[] = [];
    const shards = await Promise.all(
      [0, 1].map((index) =>
        runDrill(
          { ...input, shard: `${index}/2`, outFile: join(dir, `shard-${index}.json`) },
          { ...drillDeps(emulator), onRecord: (r) => records.push({ ...r }) },
        ),
      ),
    );
    expect(shards.map((s) => s.exitCode)).toEqual([0, 0]);
    expect(shards[0]?.report).toMatch(/shard 0\/2 recorded \(not judged/);
    const files = shards.map((s) => s.written[0] as string);
    const zero = readArtifact('drill-shard', files[0] as string);
    expect(zero.observer?.observations.length).toBeGreaterThan(50);
    expect(readArtifact('drill-shard', files[1] as string).observer).toBeNull();

    const out = join(dir, 'drill-merged.json');
    const cli = await runCli(['drill', 'merge', ...files, '--out', out]);
    expect(cli.stderr).toBe('');
    // A 2 x surge from 55 % of one instance's throughput is 110 % of it until the scale-out lands:
    // the queue overflows in the surge, as the plan predicted, and the SLO does not hold.
    expect(cli.stdout).toMatch(
      /^scalegate drill kokoro-82m: FAIL — SLO broken in (\d+ steady windows? and )?\d+ surge windows? \(.*predicted by (the plan|it): overflow [\d.]+ % within T_plan of a x1.25 surge\)/,
    );
    expect(cli.exitCode).toBe(1);
    const drill = readArtifact('drill', out);
    expect(drill).toMatchObject({ verdict: 'fail', slo_held: false });
    expect(drill.slo?.broken_by_phase.surge).toBeGreaterThan(0);
    // The surge's windows outside the SLO lie within T_plan of the breach: the plan predicted them.
    const surgeOutside = drill.analysis.windows.filter((w) => w.phase === 'surge' && w.slo_held === false);
    expect(surgeOutside.every((w) => w.judged === 'predicted')).toBe(true);
    expect(readdirSync(dir)).toContain('drill-merged.svg');

    // The policy lag, from the surge on a busy endpoint, agrees with the alarm's configuration.
    const chain = drill.analysis.scale_outs.find((c) => c.evaluation === 'full');
    expect(chain).toMatchObject({ load_step: 'surge', from_instances: 1, configured_detection_s: 30 });
    const configured = (chain?.configured_detection_s as number) + EVALUATION_INTERVAL_S;
    expect(Math.abs((chain?.detection_s as number) - configured)).toBeLessThanOrEqual(2);
    expect(drill.analysis.policy_lag.evaluation).toBe('full');
    expect(Math.abs((drill.analysis.policy_lag.seconds as number) - configured)).toBeLessThanOrEqual(3);
    expect(chain?.in_service_s).not.toBeNull();

    // Counts: every arrival of the unsharded schedule in its window, once.
    const expected = new Map<number, number>();
    for (const offset of scheduleOffsets(drillArrivalSpec(drill.phases, drill.settings.seed))) {
      const w = Math.floor(offset / 5000);
      expected.set(w, (expected.get(w) ?? 0) + 1);
    }
    expect(drill.histograms.windows.map((w) => [w.index, w.offered])).toEqual(
      [...expected.entries()].sort((a, b) => a[0] - b[0]),
    );
    // Outcomes and p95 per window: what one process recording both shards' requests saw.
    const byWindow = new Map<number, OpenLoopRecord[]>();
    for (const r of records) byWindow.set(r.window, [...(byWindow.get(r.window) ?? []), r]);
    for (const w of drill.histograms.windows) {
      const pooled = byWindow.get(w.index) ?? [];
      const counts: Record<string, number> = {};
      for (const r of pooled) counts[r.outcome] = (counts[r.outcome] ?? 0) + 1;
      expect(w.outcome_counts).toEqual(counts);
      const ttfab = pooled
        .filter((r) => r.outcome === 'ok')
        .map((r) => Math.round((r.ttfabIntendedMs as number) * 1000) / 1000)
        .sort((a, b) => a - b);
      const judged = drill.analysis.windows.find((x) => x.index === w.index);
      // No survivorship: every arrival without a TTFAB is a miss at +infinity, so the nearest-rank
      // 95th percentile is over all offered arrivals (rank ceil(0.95 n), at least 1); beyond the
      // answered ones it is infinite, recorded as null.
      const rank = Math.max(1, Math.ceil(0.95 * Math.max(w.offered, ttfab.length) - 1e-9));
      if (ttfab.length === 0 || rank > ttfab.length) {
        expect(judged?.p95_ms).toBeNull();
        continue;
      }
      const exact = ttfab[rank - 1] as number;
      expect(Math.abs((judged?.p95_ms as number) - exact)).toBeLessThanOrEqual(
        exact * RELATIVE_PRECISION + 0.002,
      );
    }
  });

  it('refuses to merge a shard of another drill, naming the file (prevents shards that disagree being judged as one)', async () => {
    const files = readdirSync(dir).filter((f) => /^shard-\d\.json$/.test(f));
    expect(files).toHaveLength(2);
    const one = readArtifact('drill-shard', join(dir, 'shard-1.json'));
    const other: DrillShardArtifact = { ...one, settings: { ...one.settings, surge_ratio: 1.5 } };
    const forged = join(dir, 'shard-1-other.json');
    writeFileSync(forged, JSON.stringify(other));
    const cli = await runCli([
      'drill',
      'merge',
      join(dir, 'shard-0.json'),
      forged,
      '--out',
      join(dir, 'x.json'),
    ]);
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/shard-1-other\.json: settings .* these are shards of different drills/);
    expect(readdirSync(dir)).not.toContain('x.json');
  });
});
