/**
 * Re-running `plan` on unchanged inputs writes the same bytes: the run id and time of the plan
 * already there are kept, so a committed validate (or drill) that names that run id stays its
 * proof. Any change of what the plan derives from (a measurement, a choice) gives a new run id.
 */
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPlan } from '../../src/commands/plan.js';
import { loadModelContext } from '../../src/model/index.js';
import { repoRoot } from '../helpers/anchor.js';

const QMAX = join(repoRoot, 'artifacts', 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
const TTOTAL = join(repoRoot, 'artifacts', 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json');
const context = loadModelContext({
  configFile: join(repoRoot, 'scalegate.config.json'),
  modelName: 'kokoro-82m',
});

function plan(outFile: string, at: string, extra: { minInstancesFloor?: number; version?: string } = {}) {
  const result = runPlan(
    {
      modelName: context.modelName,
      model: context.model,
      qmaxFile: QMAX,
      ttotalFile: TTOTAL,
      outFile,
      ...(extra.minInstancesFloor === undefined ? {} : { minInstancesFloor: extra.minInstancesFloor }),
    },
    { clock: () => new Date(at), ...(extra.version ? { version: extra.version } : {}) },
  );
  if (!result.artifact) throw new Error('no plan');
  return { ...result, artifact: result.artifact };
}

describe('plan on unchanged inputs', () => {
  it('writes a byte-identical plan, keeping the first run id and time (prevents invalidating the committed validate)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-plan-id-'));
    const out = join(dir, 'plan-kokoro-82m.json');
    const first = plan(out, '2026-11-01T10:00:00.000Z');
    const bytes = readFileSync(out, 'utf8');
    const again = plan(out, '2026-11-15T10:00:00.000Z');
    expect(readFileSync(out, 'utf8')).toBe(bytes);
    expect(again.artifact.run_id).toBe(first.artifact.run_id);
    expect(again.artifact.created_at).toBe('2026-11-01T10:00:00.000Z');
    expect(again.report).toContain(`unchanged: same inputs and values, run ${first.artifact.run_id}`);
  });

  it('reproduces the committed plan byte for byte from the committed measurements (its committed validate stays valid)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-plan-committed-'));
    const out = join(dir, 'plan-kokoro-82m.json');
    copyFileSync(join(repoRoot, 'artifacts', 'plan-kokoro-82m.json'), out);
    const committed = readFileSync(out, 'utf8');
    // The committed plan names its inputs as the repository does: paths relative to its root.
    expect(process.cwd()).toBe(repoRoot);
    const result = runPlan(
      {
        modelName: context.modelName,
        model: context.model,
        qmaxFile: relative(repoRoot, QMAX),
        ttotalFile: relative(repoRoot, TTOTAL),
        outFile: out,
      },
      { clock: () => new Date('2026-11-15T10:00:00.000Z') },
    );
    expect(result.artifact?.run_id).toBe(JSON.parse(committed).run_id);
    expect(readFileSync(out, 'utf8')).toBe(committed);
  });

  it('keeps the run id across a tool upgrade that changes no value (only the tool line differs)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-plan-tool-'));
    const out = join(dir, 'plan-kokoro-82m.json');
    const first = plan(out, '2026-11-01T10:00:00.000Z', { version: '0.1.0' });
    const next = plan(out, '2026-11-15T10:00:00.000Z', { version: '0.2.0' });
    expect(next.artifact.run_id).toBe(first.artifact.run_id);
    expect(next.artifact.provenance.tool).toBe('scalegate 0.2.0');
  });

  it('takes a new run id and time when a choice changes (a changed plan is not proven by the old validate)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-plan-changed-'));
    const out = join(dir, 'plan-kokoro-82m.json');
    const first = plan(out, '2026-11-01T10:00:00.000Z');
    const changed = plan(out, '2026-11-15T10:00:00.000Z', { minInstancesFloor: 3 });
    expect(changed.artifact.run_id).not.toBe(first.artifact.run_id);
    expect(changed.artifact.created_at).toBe('2026-11-15T10:00:00.000Z');
    expect(changed.report).not.toContain('unchanged');
    // and back to the first inputs: a new run again (the file on disk is the changed plan now)
    const back = plan(out, '2026-11-20T10:00:00.000Z');
    expect(back.artifact.run_id).not.toBe(changed.artifact.run_id);
  });

  it('takes a new run id when the file there is not a readable plan', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-plan-junk-'));
    const out = join(dir, 'plan-kokoro-82m.json');
    copyFileSync(QMAX, out);
    const { artifact } = plan(out, '2026-11-15T10:00:00.000Z');
    expect(artifact.created_at).toBe('2026-11-15T10:00:00.000Z');
  });
});
