/**
 * `scalegate gate` through the CLI on forged files built from the committed Kokoro artifacts: each
 * is refused (exit 1) on the check that catches it, with its fix. What the release workflow runs
 * before `cdk deploy`; the files are written as a pull request could write them.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArtifact, validateFileName, writeArtifact } from '../../src/model/index.js';
import { runCli } from '../helpers/cli.js';
import {
  artifactsDirWith,
  cleanValidate,
  drillOf,
  kokoroModel,
  kokoroPlan,
  measuredPlan,
} from '../infra/fixtures.js';

const REPO = join(import.meta.dirname, '..', '..');
const CONFIG = join(REPO, 'scalegate.config.json');
const QMAX = 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json';
const TTOTAL = 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json';

/** The committed Kokoro plan, its measurements and a clean validate of it, in a fresh directory. */
function committed(): string {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-forged-'));
  for (const name of ['plan-kokoro-82m.json', QMAX, TTOTAL])
    copyFileSync(join(REPO, 'artifacts', name), join(dir, name));
  writeArtifact(
    'validate',
    join(dir, validateFileName('kokoro-82m')),
    cleanValidate(readArtifact('plan', join(dir, 'plan-kokoro-82m.json'))),
  );
  return dir;
}

const gate = (dir: string, config = CONFIG) =>
  // Offline: what is judged here is the re-derivation; attestations are gate-attested.test.ts's.
  runCli([
    'gate',
    '--model',
    'kokoro-82m',
    '--config',
    config,
    '--plan',
    join(dir, 'plan-kokoro-82m.json'),
    '--offline',
  ]);
const failedChecks = (stdout: string) => stdout.match(/^ {2}✗ \S+/gm)?.map((l) => l.slice(4)) ?? [];
const editJson = (file: string, edit: (json: Record<string, unknown>) => void) => {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  edit(json);
  writeFileSync(file, JSON.stringify(json, null, 2));
};

describe('scalegate gate refuses forged proofs and measurements (CLI, exit 1)', () => {
  it('passes the committed Kokoro plan with its validate: the legacy measurements are the committed files', async () => {
    const r = await gate(committed());
    expect(r.stdout).toMatch(
      /✓ qmax_rederived +Q_max 50 \(bracketed by a breach at 60\).*legacy, not re-derivable/,
    );
    expect(r.stdout).toMatch(/✓ ttotal_rederived +T_total 260\.248496 s follows from the timeline/);
    expect(r.exitCode, r.stdout).toBe(0);
  });

  it('refuses a hand-written validate (clean, no rows, region local)', async () => {
    const dir = committed();
    writeFileSync(
      join(dir, validateFileName('kokoro-82m')),
      JSON.stringify({
        schema_version: 1,
        kind: 'validate',
        model_name: 'kokoro-82m',
        endpoint: 'speech-kokoro-82m-calibration',
        region: 'local',
        run_id: 'handwritten1',
        checked_at: '2026-11-01T00:00:00.000Z',
        verdict: 'clean',
        plan: {
          ...readArtifact('plan', join(dir, 'plan-kokoro-82m.json')),
          file: 'artifacts/plan-kokoro-82m.json',
        },
        rows: [],
      }),
    );
    // The plan field as the validate records it: file, run id and fingerprint.
    editJson(join(dir, validateFileName('kokoro-82m')), (json) => {
      const plan = json.plan as Record<string, unknown>;
      json.plan = { file: plan.file, run_id: plan.run_id, fingerprint: plan.fingerprint };
    });
    const r = await gate(dir);
    expect(r.exitCode).toBe(1);
    expect(failedChecks(r.stdout)).toEqual(['validated']);
    expect(r.stdout).toMatch(
      /✗ validated +.*taken on the local SageMaker \(region local\); it proves nothing about a deployment to us-east-1/,
    );
  });

  it('refuses a qmax whose Q_max was forged from 50 to 5000 in the committed file', async () => {
    const dir = committed();
    editJson(join(dir, QMAX), (json) => {
      json.q_max = 5000;
    });
    const r = await gate(dir);
    expect(r.exitCode).toBe(1);
    expect(failedChecks(r.stdout)).toContain('qmax_rederived');
    expect(r.stdout).toMatch(/✗ qmax_rederived +.*q_max 5000 \(recorded\) vs 50 \(from its rungs\)/);
  });

  it('refuses a committed legacy qmax edited without changing any figure (no longer the committed bytes)', async () => {
    const dir = committed();
    editJson(join(dir, QMAX), (json) => {
      (json.provenance as Record<string, unknown>).note = 'edited';
    });
    const r = await gate(dir);
    expect(failedChecks(r.stdout)).toEqual(['qmax_rederived']);
    expect(r.stdout).toMatch(/legacy, not re-derivable .*is not the committed 8730d05c598c/);
  });

  it('refuses a ttotal whose T_total was forged, naming what its timeline gives', async () => {
    const dir = committed();
    editJson(join(dir, TTOTAL), (json) => {
      json.t_total_s = 26;
    });
    const r = await gate(dir);
    expect(r.exitCode).toBe(1);
    expect(failedChecks(r.stdout)).toContain('ttotal_rederived');
    expect(r.stdout).toMatch(
      /✗ ttotal_rederived +.*t_total_s 26 \(recorded\) vs 260\.249 \(desired_set to traffic_recovered/,
    );
  });

  it('refuses a plan at SLO 60 000 ms where the config says 3 000 ms', async () => {
    const dir = artifactsDirWith({ 'kokoro-82m': measuredPlan({ sloMs: 60000 }) });
    const r = await gate(dir);
    expect(r.exitCode).toBe(1);
    expect(failedChecks(r.stdout)).toEqual(['plan_config']);
    expect(r.stdout).toMatch(/✗ plan_config +.*slo_ms 60000 \(plan\) vs 3000 \(config\)/);
  });

  it('refuses at release a plan made with --allow-config-mismatch', async () => {
    const dir = artifactsDirWith({ 'kokoro-82m': measuredPlan({ mismatchedTtotal: true }) });
    const r = await gate(dir);
    expect(failedChecks(r.stdout)).toEqual(['config_mismatch']);
  });

  it('with require_drill, refuses a hand-written drill that records slo_held with no windows', async () => {
    const plan = kokoroPlan();
    const genuine = drillOf(plan);
    const handWritten = {
      ...genuine,
      histograms: { ...genuine.histograms, windows: [] },
      load_seconds: [],
      analysis: { ...genuine.analysis, windows: [] },
    };
    const dir = artifactsDirWith({ 'kokoro-82m': plan });
    const config = join(dir, 'scalegate.config.json');
    writeFileSync(config, JSON.stringify({ models: { 'kokoro-82m': kokoroModel({ require_drill: true }) } }));
    writeArtifact('drill', join(dir, 'drill-kokoro-82m-g5xlarge-8b1b96bc.json'), handWritten);
    const r = await gate(dir, config);
    expect(r.exitCode).toBe(1);
    expect(failedChecks(r.stdout)).toEqual(['drilled']);
    expect(r.stdout).toMatch(/✗ drilled +.*is no proof of this plan: it holds no windows of load to judge/);
    writeArtifact('drill', join(dir, 'drill-kokoro-82m-g5xlarge-8b1b96bc.json'), genuine);
    expect((await gate(dir, config)).exitCode).toBe(0);
  });
});
