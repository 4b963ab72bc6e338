import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTune, type TuneInput } from '../../src/commands/tune.js';
import { readArtifact, readConfigFile, tuneArtifactSchema } from '../../src/model/index.js';
import { anchorQmaxFile, anchorTtotalFile, configFile } from '../helpers/anchor.js';
import { runCli } from '../helpers/cli.js';
import { toySimulate } from '../helpers/toy-fleet.js';
import { anchorTuneArgs } from '../helpers/tune-data.js';

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-tune-'));
  // Five minutes at 20 requests/s, then 60 (a ramp), for ten minutes in all.
  writeFileSync(join(dir, 'trace.csv'), 't_s,rps\n0,20\n300,60\n600,\n');
  return dir;
}

const model = readConfigFile(configFile).models['kokoro-82m'];
if (!model) throw new Error('the repository config has no kokoro-82m');

const input = (dir: string, extra: Partial<TuneInput> = {}): TuneInput => ({
  modelName: 'kokoro-82m',
  model,
  qmaxFile: anchorQmaxFile,
  ttotalFile: anchorTtotalFile,
  traceFile: join(dir, 'trace.csv'),
  outFile: join(dir, 'tune.json'),
  maxCandidates: 12,
  runId: 'tune-test',
  ...extra,
});

describe('scalegate tune (scores from a stand-in simulator)', () => {
  it('writes a tune artifact that validates against its schema, with the chart beside it', () => {
    const dir = workspace();
    const lines: string[] = [];
    const result = runTune(input(dir), {
      simulate: toySimulate,
      progress: (e) => {
        if (e.type === 'log') lines.push(e.line);
      },
      clock: () => new Date('2025-06-01T00:00:00Z'),
    });
    expect(tuneArtifactSchema.safeParse(result.artifact).success).toBe(true);
    const written = readArtifact('tune', join(dir, 'tune.json'));
    expect(written.trace.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(written.trace.duration_s).toBe(600);
    expect(written.trace.peak_rps).toBe(60);
    expect(written.perfect_fleet.policy).toBeNull();
    expect(written.seed_rule.policy?.scaling_metric).toBe('ConcurrentRequestsPerModel');
    const svg = readFileSync(join(dir, 'tune.svg'), 'utf8');
    expect(svg).toMatch(/^<svg[^>]*>/);
    // The chart marks what the table does: frontier, chosen, seed rule, the perfect fleet as a bound.
    const frontier = written.candidates.filter((c) => c.pareto).length;
    expect(svg.match(/class="candidate pareto"/g)?.length ?? 0).toBe(frontier);
    expect(svg.match(/class="candidate"/g)?.length ?? 0).toBe(written.candidates.length - frontier);
    expect(svg).toContain('class="chosen"');
    expect(svg).toContain('class="seed-rule"');
    expect(svg).toContain('perfect fleet (lower bound)');
    // One progress line per simulation (12 candidates, the seed rule, the perfect fleet, pre-scaled ones).
    expect(lines[0]).toMatch(/^tune: scoring 12 candidates/);
    expect(lines.length).toBeGreaterThanOrEqual(1 + 14);
  });

  it('chooses the cheapest candidate that holds the required attainment and exits 0', () => {
    const dir = workspace();
    const result = runTune(input(dir), { simulate: toySimulate });
    const a = result.artifact;
    if (!a) throw new Error('no artifact');
    expect(result.exitCode).toBe(0);
    expect(a.chosen_holds).toBe(true);
    const holding = a.candidates.filter((c) => c.score.slo_attainment >= 0.995);
    const cheapest = Math.min(...holding.map((c) => c.score.instance_hours));
    expect(a.chosen.score.instance_hours).toBe(cheapest);
    expect(a.chosen.pareto).toBe(true);
    expect(result.report).toMatch(/chosen: .*the fewest instance-hours/);
    expect(result.report).toMatch(/computed by simulation on trace [0-9a-f]{12}/);
    expect(result.report).toMatch(/LOWER BOUND/);
  });

  it('exits 1 with the best attainment when no candidate holds, after trying pre-scaled ones', () => {
    const dir = workspace();
    const result = runTune(input(dir, { requiredAttainment: 0.9995 }), { simulate: toySimulate });
    const a = result.artifact;
    if (!a) throw new Error('no artifact');
    expect(result.exitCode).toBe(1);
    expect(a.chosen_holds).toBe(false);
    expect(a.chosen.score.slo_attainment).toBe(Math.max(...a.candidates.map((c) => c.score.slo_attainment)));
    const prescaled = a.candidates.filter((c) => (c.policy?.scheduled_actions.length ?? 0) > 0);
    expect(prescaled.length).toBeGreaterThan(0);
    for (const c of prescaled) expect(c.note).toMatch(/scheduled pre-scaling/);
    expect(result.report).toMatch(/NO CANDIDATE HOLDS/);
  });
});

describe('scalegate tune refuses input it cannot tune on (exit 2, naming the flag, nothing written)', () => {
  const base = (dir: string) => anchorTuneArgs(join(dir, 'tune.json'));

  it('refuses a tune without traffic (neither --trace nor --shape)', async () => {
    const dir = workspace();
    const run = await runCli(base(dir));
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/--trace/);
    expect(run.stderr).toMatch(/--shape/);
    expect(existsSync(join(dir, 'tune.json'))).toBe(false);
  });

  it('refuses --trace and --shape together', async () => {
    const dir = workspace();
    const run = await runCli([...base(dir), '--trace', join(dir, 'trace.csv'), '--shape', 'flat']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/--trace and --shape both given/);
  });

  it('refuses a ttotal of another model than the qmax, naming both flags and the file', async () => {
    const dir = workspace();
    const other = JSON.parse(readFileSync(anchorTtotalFile, 'utf8'));
    other.model_name = 'reference-tts';
    const otherFile = join(dir, 'ttotal-other.json');
    writeFileSync(otherFile, JSON.stringify(other));
    const args = base(dir);
    args[args.indexOf('--ttotal') + 1] = otherFile;
    const run = await runCli([...args, '--trace', join(dir, 'trace.csv')]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`--ttotal ${otherFile} was measured for model reference-tts`);
    expect(run.stderr).toContain(`--qmax ${anchorQmaxFile}`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'tune.json'))).toBe(false);
  });

  it('refuses a trace file that is not a trace, naming --trace and the file', async () => {
    const dir = workspace();
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'time,rate\n0,1\n');
    const run = await runCli([...base(dir), '--trace', bad]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(`--trace ${bad}`);
  });

  it('refuses a required attainment outside (0, 1]', async () => {
    const dir = workspace();
    const run = await runCli([
      ...base(dir),
      '--trace',
      join(dir, 'trace.csv'),
      '--required-attainment',
      '1.5',
    ]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/--required-attainment 1.5/);
  });
});
