/**
 * The gate derives the measurements again from what they store before it derives the plan: Q_max
 * and its bracket from the rungs, T_total from the timeline. A forged figure is refused (and the
 * plan re-derived from the figure the data gives); a legacy qmax, whose rungs record no decision, is
 * accepted only as the committed file itself.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PlanMeasurements, QmaxArtifact } from '../../src/model/index.js';
import { readArtifact } from '../../src/model/index.js';
import { evaluateGate } from '../../src/plan/gate.js';
import { qmaxCheck, T_TOTAL_TOLERANCE_S, ttotalCheck } from '../../src/plan/gate-measurements.js';
import { anchorQmaxFile, anchorTtotalFile } from '../helpers/anchor.js';
import {
  cleanValidate,
  KOKORO_DIGEST,
  kokoroMeasurements,
  kokoroModel,
  kokoroPlan,
  measurementsOf,
} from '../infra/fixtures.js';

const FIX = '`scalegate qmax --model kokoro-82m --endpoint <endpoint>-calibration`';
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const fresh = () => kokoroMeasurements();

/** Q_max 50 -> 5000 with its rungs untouched (the target it gives: 0.75 x 5000 = 3750 in flight). */
function forgedQmax(): QmaxArtifact {
  const q = fresh().qmax;
  return { ...q, q_max: 5000, q_max_per_run: [5000], ttfab_p95_at_q_max_ms: 2900 };
}

describe('qmax_rederived: Q_max and its bracket from the stored rungs', () => {
  it('passes the measurement as written (prevents a false refusal of a genuine artifact)', () => {
    const { check, qmax } = qmaxCheck(fresh().qmax, 'q.json', null, FIX);
    expect(check).toMatchObject({ check: 'qmax_rederived', ok: true });
    expect(check.detail).toContain('Q_max 50 (bracketed by a breach at 60)');
    expect(qmax.q_max).toBe(50);
  });

  it('refuses a Q_max forged from 50 to 5000, naming the value its rungs give, and corrects it for the re-derivation', () => {
    const { check, qmax } = qmaxCheck(forgedQmax(), 'q.json', null, FIX);
    expect(check.ok).toBe(false);
    expect(check.detail).toContain('q_max 5000 (recorded) vs 50 (from its rungs)');
    expect(check.detail).toContain('q_max_per_run [5000] (recorded) vs [50] (from its rungs)');
    expect(check.fix).toContain(FIX);
    expect(qmax.q_max).toBe(50);
    expect(qmax.ttfab_p95_at_q_max_ms).toBe(fresh().qmax.ttfab_p95_at_q_max_ms);
  });

  it('refuses a forged bracket and service time', () => {
    const unbracketed = { ...fresh().qmax, q_max_bracketed: false, q_max_upper_bound: null };
    expect(qmaxCheck(unbracketed, 'q.json', null, FIX).check.detail).toContain(
      'q_max_upper_bound none (recorded) vs 60 (from its rungs)',
    );
    const faster = { ...fresh().qmax, s_p95_s: 0.01 };
    expect(qmaxCheck(faster, 'q.json', null, FIX).check.detail).toMatch(
      /s_p95_s 0\.01, its rung at concurrency 1 measured 0\.066/,
    );
  });

  it('refuses rungs whose recorded decision contradicts their own record (a pass over the SLO, usable while client-bound)', () => {
    const q = fresh().qmax;
    const over = q.steps.find((s) => s.concurrency === 60) as QmaxArtifact['steps'][number];
    over.verdict = 'pass';
    const bound = q.steps.find((s) => s.concurrency === 5) as QmaxArtifact['steps'][number];
    bound.client_bound = true;
    const { check } = qmaxCheck(q, 'q.json', null, FIX);
    expect(check.ok).toBe(false);
    expect(check.detail).toContain(
      'rung 60 (run 1) records a pass although its own p95 does not meet the SLO',
    );
    expect(check.detail).toContain('rung 5 (run 1) records usable true although it was voided');
  });

  it('accepts the committed legacy Kokoro qmax as legacy, not re-derivable rung by rung, bound to its committed digest', () => {
    const legacy = readArtifact('qmax', anchorQmaxFile);
    const { check } = qmaxCheck(legacy, anchorQmaxFile, sha(anchorQmaxFile), FIX);
    expect(check.ok, check.detail).toBe(true);
    expect(check.detail).toContain('legacy, not re-derivable');
    expect(check.detail).toContain('accepted as the committed legacy measurement (sha256 8730d05c598c');
  });

  it('refuses a modern artifact that claims to be legacy, or whose rungs record no decision (prevents a forgery hiding behind the legacy exemption)', () => {
    const claims = { ...fresh().qmax, provenance: { origin: 'legacy' as const, tool: 'x', note: null } };
    const byName = qmaxCheck(claims, anchorQmaxFile, 'f'.repeat(64), FIX).check;
    expect(byName.ok).toBe(false);
    expect(byName.detail).toContain('legacy, not re-derivable (it claims the legacy origin');
    expect(byName.detail).toContain(`sha256 ${'f'.repeat(64)} is not the committed 8730d05c598c`);
    const stripped = fresh().qmax;
    for (const step of stripped.steps) step.decision_method = null;
    const other = qmaxCheck(stripped, 'artifacts/qmax-kokoro-82m-other.json', null, FIX).check;
    expect(other.ok).toBe(false);
    expect(other.detail).toContain('8 of its rungs record no decision');
    expect(other.detail).toContain('no committed legacy file is named qmax-kokoro-82m-other.json');
    expect(other.fix).toContain("re-measure with this scalegate, which records each rung's decision");
  });

  it('refuses at the gate a plan made from the forged qmax, and re-derives it from the rungs (its target from Q_max 50, not 5000)', () => {
    const genuine = kokoroPlan();
    const { ttotal } = measurementsOf(genuine) as NonNullable<ReturnType<typeof measurementsOf>>;
    const forged = forgedQmax();
    // The plan written to match the forged figure (derivePlan itself refuses a fleet that size).
    const plan = kokoroPlan({ measured: { q_max: 5000 }, deployable: { scaling_target_value: 3750 } });
    const measurements: PlanMeasurements = {
      qmax: forged,
      qmaxFile: genuine.inputs.qmax.file,
      ttotal,
      ttotalFile: genuine.inputs.ttotal?.file ?? null,
      error: null,
    };
    const result = evaluateGate({
      modelName: 'kokoro-82m',
      model: kokoroModel(),
      planFile: 'artifacts/plan-kokoro-82m.json',
      plan,
      measurements,
      deployImageDigest: KOKORO_DIGEST,
      deployRegion: 'us-east-1',
      proofs: {
        validateFile: 'v.json',
        validate: cleanValidate(plan),
        validateError: null,
        drills: [],
        drillErrors: [],
      },
    });
    expect(result.passed).toBe(false);
    const failed = result.checks.filter((c) => !c.ok).map((c) => c.check);
    expect(failed).toEqual(expect.arrayContaining(['qmax_rederived', 'rederived']));
    const rederived = result.checks.find((c) => c.check === 'rederived')?.detail;
    expect(rederived).toContain('scaling_target_value 3750 (plan) vs 6 (re-derived)');
    expect(result.rederived?.deployable).toEqual(genuine.deployable);
  });
});

describe('ttotal_rederived: T_total from the timeline', () => {
  it('passes the committed legacy ttotal: its microsecond T_total agrees with its millisecond stamps within 1 ms', () => {
    const legacy = readArtifact('ttotal', anchorTtotalFile);
    const { check, ttotal } = ttotalCheck(legacy, anchorTtotalFile, FIX);
    expect(check.ok, check.detail).toBe(true);
    expect(ttotal.t_total_s).toBe(260.248496);
    expect(T_TOTAL_TOLERANCE_S).toBe(0.001);
  });

  it('refuses a T_total forged from 260.2 s to 26 s, naming what its timeline gives, and corrects it for the re-derivation', () => {
    const t = fresh().ttotal as NonNullable<ReturnType<typeof fresh>['ttotal']>;
    const { check, ttotal } = ttotalCheck({ ...t, t_total_s: 26 }, 't.json', FIX);
    expect(check.ok).toBe(false);
    expect(check.detail).toContain(
      't_total_s 26 (recorded) vs 260.249 (desired_set to traffic_recovered in its timeline)',
    );
    expect(ttotal.t_total_s).toBe(260.249);
    // 2 ms off is outside the stamps' resolution: refused too.
    expect(ttotalCheck({ ...t, t_total_s: 260.247 }, 't.json', FIX).check.ok).toBe(false);
  });

  it('refuses an end stage the timeline does not have, and a timeline without the clock start', () => {
    const t = fresh().ttotal as NonNullable<ReturnType<typeof fresh>['ttotal']>;
    const recoveredClaim = {
      ...t,
      timeline: t.timeline.filter((e) => e.stage !== 'traffic_recovered'),
      t_total_end_stage: 'traffic_recovered',
    };
    expect(ttotalCheck(recoveredClaim, 't.json', FIX).check.detail).toContain(
      'ends at traffic_recovered (recorded) but its timeline ends at in_service',
    );
    const noStart = { ...t, timeline: t.timeline.filter((e) => e.stage !== 'desired_set') };
    expect(ttotalCheck(noStart, 't.json', FIX).check.detail).toContain('T_total cannot be derived from it');
  });
});
