/**
 * `scalegate drill` (here its `drill merge`, which judges recorded shards with no AWS call): the
 * exit code follows whether the SLO held. A window outside the SLO exits 1 even when the plan
 * predicted the breach; the prediction is printed beside the failure, never as a pass.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DrillShardArtifact, readArtifact } from '../../src/model/index.js';
import { runCli } from '../helpers/cli.js';
import { drillData, observerWith, type WindowSpec, windowsWith } from '../helpers/drill-data.js';

/** One whole drill recorded as shard 0 of 1 (the observer's), ready for `drill merge`. */
function shardFile(dir: string, replace: Record<number, WindowSpec>, breachS: number | null): string {
  const data = drillData({ windows: windowsWith(replace), observer: observerWith({ breachS }) });
  const shard: DrillShardArtifact = { ...data, kind: 'drill-shard', shard: { index: 0, count: 1 } };
  const file = join(dir, 'drill-kokoro-82m-g5xlarge-aaaaaaaa.shard-0-of-1.json');
  writeFileSync(file, JSON.stringify(shard));
  return file;
}

const overflowing: WindowSpec = { offered: 100, overflow: 20, ttfabMs: 700 };

describe('drill exit code', () => {
  it('exits 1 with verdict fail when steady windows overflowed, even though the plan predicted overflow there (prevents a drill with an overflowing window exiting 0)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-drill-verdict-'));
    // The metric is over the target from the start: the plan's no-surge baseline (99 %) predicted it.
    const file = shardFile(dir, { 2: overflowing, 3: overflowing, 4: overflowing }, 0);
    const out = join(dir, 'drill.json');
    const cli = await runCli(['drill', 'merge', file, '--out', out]);
    expect(cli.stderr).toBe('');
    expect(cli.exitCode).toBe(1);
    expect(cli.stdout).toMatch(
      /^scalegate drill kokoro-82m: FAIL — SLO broken in 3 steady windows \(predicted by the plan: overflow 99.0 % with no surge\)/,
    );
    expect(cli.stdout).toContain(
      'verdict: fail — SLO broken in 3 steady windows (predicted by the plan: overflow 99.0 % with no surge)',
    );
    const drill = readArtifact('drill', out);
    expect(drill).toMatchObject({ verdict: 'fail', slo_held: false, as_predicted: true, broken_windows: [] });
    expect(drill.slo?.broken_windows).toEqual([2, 3, 4]);
    expect(readFileSync(join(dir, 'drill.svg'), 'utf8')).toContain(
      'surge drill x1.25: fail — SLO broken in 3 steady windows',
    );
  });

  it('exits 0 with verdict pass when every full steady and surge window held the SLO with no overflow (prevents a clean drill failing the job)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-drill-verdict-'));
    const file = shardFile(dir, {}, 60);
    const out = join(dir, 'drill.json');
    const cli = await runCli(['drill', 'merge', file, '--out', out]);
    expect(cli.stderr).toBe('');
    expect(cli.exitCode).toBe(0);
    expect(cli.stdout).toMatch(
      /^scalegate drill kokoro-82m: PASS — SLO held in all 16 full steady and surge windows/,
    );
    expect(readArtifact('drill', out)).toMatchObject({ verdict: 'pass', slo_held: true, as_predicted: true });
  });
});
