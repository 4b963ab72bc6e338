import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArtifact, tuneArtifactSchema } from '../../src/model/index.js';
import { runCli } from '../helpers/cli.js';
import { anchorTuneArgs } from '../helpers/tune-data.js';

/**
 * `scalegate tune` end to end through the real fleet simulator: the Kokoro-82M anchor measurements
 * on a 15-minute trace (5 requests/s, then 30 from minute 2: a ramp a single instance cannot hold).
 */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-tune-cli-'));
  writeFileSync(join(dir, 'trace.csv'), 't_s,rps\n0,5\n120,30\n900,\n');
  return dir;
}

const args = (dir: string, out: string, ...extra: string[]): string[] => [
  ...anchorTuneArgs(join(dir, out)),
  '--max-candidates',
  '10',
  ...extra,
];

describe('scalegate tune through the fleet simulator', () => {
  it('scores the candidates on the trace, writes the artifact and chart, and exits by whether one holds', async () => {
    const dir = workspace();
    const run = await runCli(args(dir, 'tune.json', '--trace', join(dir, 'trace.csv')));
    const a = readArtifact('tune', join(dir, 'tune.json'));
    expect(tuneArtifactSchema.safeParse(a).success).toBe(true);
    expect(run.exitCode).toBe(a.chosen_holds ? 0 : 1);
    expect(a.trace.duration_s).toBe(900);
    expect(a.trace.peak_rps).toBe(30);
    // 5/s for 120 s and 30/s for 780 s: about 24,000 Poisson arrivals (4 sigma is about 620).
    expect(Math.abs(a.trace.requests - 24_000)).toBeLessThan(620);
    for (const e of [...a.candidates, a.seed_rule, a.perfect_fleet]) {
      expect(e.score.requests).toBe(a.trace.requests); // one seed: every policy sees the same arrivals
      expect(e.score.windows).toBe(90);
    }
    // The perfect fleet is sized at lambda_safe with no start-up: it holds the SLO where the device does.
    expect(a.perfect_fleet.score.slo_attainment).toBeGreaterThanOrEqual(0.99);
    expect(a.perfect_fleet.score.peak_instances).toBe(Math.ceil(30 / a.settings.lambda_safe_rps));
    // The chosen one follows the rule over the scored candidates.
    const holding = a.candidates.filter((c) => c.score.slo_attainment >= a.settings.required_slo_attainment);
    if (a.chosen_holds) {
      expect(a.chosen.score.instance_hours).toBe(Math.min(...holding.map((c) => c.score.instance_hours)));
    } else {
      expect(holding).toEqual([]);
      expect(run.stdout).toMatch(/NO CANDIDATE HOLDS/);
    }
    expect(run.stdout).toContain(`computed by simulation on trace ${a.trace.sha256.slice(0, 12)}`);
    expect(run.stdout).toMatch(/LOWER BOUND/);
    expect(run.stderr).toMatch(/tune: scoring 10 candidates/);
    expect(readFileSync(join(dir, 'tune.svg'), 'utf8')).toContain('class="chosen"');
  });

  it('gives the same scores for the same seed (the simulation is deterministic)', async () => {
    const dir = workspace();
    await runCli(args(dir, 'a.json', '--trace', join(dir, 'trace.csv'), '--max-candidates', '3'));
    await runCli(args(dir, 'b.json', '--trace', join(dir, 'trace.csv'), '--max-candidates', '3'));
    const a = readArtifact('tune', join(dir, 'a.json'));
    const b = readArtifact('tune', join(dir, 'b.json'));
    expect(b.candidates).toEqual(a.candidates);
    expect(b.perfect_fleet).toEqual(a.perfect_fleet);
  });

  it('tunes on a built-in shape as on a file', async () => {
    const dir = workspace();
    const run = await runCli(
      args(dir, 'shape.json', '--shape', 'step:base=5,x=6,at_s=120,duration_s=900', '--max-candidates', '3'),
    );
    expect([0, 1]).toContain(run.exitCode);
    const a = readArtifact('tune', join(dir, 'shape.json'));
    expect(a.trace.kind).toBe('shape');
    expect(a.trace.source).toMatch(/^shape:step\(/);
  });
});
