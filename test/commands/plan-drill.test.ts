/**
 * `scalegate plan --drill F`: the drill's measured policy lag replaces the computed or bounded
 * one (labelled measured in the artifact and the reports), the plan reports what it predicted
 * against what the drill observed, and the gate, which derives a plan again from its recorded
 * inputs, finds the drill beside it and re-derives exactly the same plan.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGate } from '../../src/commands/gate.js';
import { runPlan } from '../../src/commands/plan.js';
import {
  type DrillArtifact,
  type Fingerprint,
  isUsageError,
  type PlanArtifact,
  validateFileName,
  writeArtifact,
} from '../../src/model/index.js';
import { renderReport } from '../../src/report/markdown.js';
import { buildDrill, observerWith, windowsWith } from '../helpers/drill-data.js';
import { artifactsDirWith, cleanValidate, kokoroMeasurements, kokoroModel } from '../infra/fixtures.js';

const noHashing = () => {
  throw new Error('an image_uri model must not hash a directory');
};

/** The kokoro measurements in a directory, and a drill of them whose first scale-out took `lag` s. */
function setup(drillFor: (fp: Fingerprint) => DrillArtifact) {
  const dir = artifactsDirWith({});
  const { qmax, ttotal } = kokoroMeasurements();
  const qmaxFile = join(dir, 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
  const ttotalFile = join(dir, 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json');
  writeArtifact('qmax', qmaxFile, qmax);
  if (ttotal) writeArtifact('ttotal', ttotalFile, ttotal);
  const drillFile = join(dir, 'drill-kokoro-82m-g5xlarge-8b1b96bc.json');
  writeArtifact('drill', drillFile, drillFor(qmax.fingerprint));
  return { dir, qmaxFile, ttotalFile, drillFile, planFile: join(dir, 'plan-kokoro-82m.json') };
}

/** A drill on the measured configuration: a busy endpoint scaled out 30.2 s after the surge's breach. */
const busyDrill = (fp: Fingerprint) =>
  buildDrill({
    windows: windowsWith({ 6: { offered: 100, overflow: 10, ttfabMs: 5000 } }),
    observer: observerWith({ breachS: 60, scaleOuts: [{ atS: 90, to: 2 }] }),
    fingerprint: fp,
    sloMs: 3000,
  });

const plan = (files: ReturnType<typeof setup>, extra: Record<string, unknown> = {}) =>
  runPlan(
    {
      modelName: 'kokoro-82m',
      model: kokoroModel(),
      qmaxFile: files.qmaxFile,
      ttotalFile: files.ttotalFile,
      drillFile: files.drillFile,
      peakRps: 1200,
      outFile: files.planFile,
      ...extra,
    },
    { version: 'test' },
  );

describe('plan --drill', () => {
  it('replaces the bounded policy lag with the measured one, labelled measured, and reports predicted vs observed (prevents a bound standing in for a measurement once one exists)', () => {
    const files = setup(busyDrill);
    const without = runPlan(
      {
        modelName: 'kokoro-82m',
        model: kokoroModel(),
        qmaxFile: files.qmaxFile,
        ttotalFile: files.ttotalFile,
        peakRps: 1200,
        outFile: join(files.dir, 'p0.json'),
      },
      { version: 'test' },
    ).artifact;
    const result = plan(files);
    const p = result.artifact;
    expect(result.exitCode).toBe(0);
    expect(without?.measured).toMatchObject({
      policy_lag_s: 60,
      policy_lag_bounded: true,
      policy_lag_origin: 'bound',
    });
    expect(p?.measured).toMatchObject({
      policy_lag_s: 30.2,
      policy_lag_bounded: false,
      policy_lag_origin: 'measured',
    });
    expect(p?.derived.t_plan_s).toBeCloseTo((without?.measured.t_total_s as number) + 30.2, 6);
    expect(p?.derived.t_plan_s).toBeLessThan(without?.derived.t_plan_s as number);
    expect(p?.inputs.drill).toMatchObject({ file: files.drillFile, run_id: 'drill-run-1' });
    expect(p?.drill_comparison).toMatchObject({
      drill_run_id: 'drill-run-1',
      drilled_plan_run_id: 'plan-run-1',
      // One surge window over the SLO, as the plan predicted: the SLO still broke, so the drill failed.
      verdict: 'fail',
      slo_held: false,
      as_predicted: true,
      policy_lag_predicted_s: 60,
      policy_lag_predicted_origin: 'bound',
      policy_lag_observed_s: 30.2,
      surge_overflow_observed: true,
      overflows_observed: 10,
    });
    // One scale-out in the drill: no prediction bound, and the plan says so.
    expect(p?.measured.policy_lag_provenance).toBe(
      'measured by a drill, single scale-out event: no prediction bound',
    );
    expect(result.report).toMatch(
      /policy lag \(measured by a drill, single scale-out event: no prediction bound\) +30.2 s/,
    );
    expect(result.report).toMatch(/drill +.*drill-kokoro-82m-g5xlarge-8b1b96bc\.json \(run drill-run-1/);
    expect(result.report).toMatch(
      /drill \(predicted vs observed\)\n {2}policy lag +predicted 60 s \(bound\), measured 30.2 s/,
    );
    expect(result.report).toMatch(
      /drill verdict +fail \(the SLO broke\); as the plan predicted \(drill run drill-run-1/,
    );
    const md = renderReport({
      modelName: 'kokoro-82m',
      command: 'plan',
      exitCode: 0,
      version: 'test',
      plan: { artifact: p as never, file: files.planFile },
    });
    expect(md).toContain(
      '| policy lag (measured by a drill, single scale-out event: no prediction bound) | 30.2 s |',
    );
    expect(md).toContain('### Drill: predicted vs observed');
  });

  it('takes the upper 90 % prediction bound over a drill with several scale-outs from a busy endpoint as the policy lag, labelled with n (prevents one fast scale-out standing for all)', () => {
    const files = setup((fp) =>
      buildDrill({
        windows: windowsWith({ 6: { offered: 100, overflow: 10, ttfabMs: 5000 } }),
        observer: observerWith({
          breachS: 60,
          scaleOuts: [
            { atS: 90, to: 2 },
            { atS: 125, to: 3 },
            { atS: 170, to: 4 },
          ],
          endS: 240,
        }),
        fingerprint: fp,
        sloMs: 3000,
      }),
    );
    const p = plan(files).artifact;
    const concurrency = p?.policy?.candidates.find((c) => c.metric === 'ConcurrentRequestsPerModel');
    // Above the first scale-out's 30.2 s: the bound covers the slower ones too.
    expect(concurrency?.policy_lag_origin).toBe('measured');
    expect(concurrency?.policy_lag_s as number).toBeGreaterThan(30.2);
    // The bound lengthens ConcurrentRequestsPerModel's T_plan past InvocationsPerInstance's 240 s
    // lag here, so the plan deploys that one and says nothing of the drill's lag as its own.
    expect(p?.policy?.chosen_metric).toBe('InvocationsPerInstance');
    expect(p?.measured.policy_lag_provenance).toBeUndefined();
    // Deployed with the drill's lag (seed rule): labelled as a bound with its n.
    const seed = plan(files, { policyRule: 'seed', outFile: join(files.dir, 'seed.json') });
    expect(seed.artifact?.measured.policy_lag_provenance).toMatch(
      /^bound \(upper 90 % prediction, n=3\) over the drill's 3 scale-outs$/,
    );
    expect(seed.artifact?.measured.policy_lag_s).toBe(concurrency?.policy_lag_s);
    expect(seed.report).toMatch(
      /policy lag \(bound \(upper 90 % prediction, n=3\) over the drill's 3 scale-outs\)/,
    );
  });

  it('keeps the gate re-deriving the plan from its recorded inputs, the drill included, and refuses when the drill is gone (prevents a hand-edited lag or a lost measurement deploying)', async () => {
    const files = setup(busyDrill);
    const planned = plan(files);
    expect(planned.exitCode).toBe(0);
    // The plan's proof (its clean validate) is there: what the gate judges here is the drill input.
    writeArtifact(
      'validate',
      join(files.planFile, '..', validateFileName('kokoro-82m')),
      cleanValidate(planned.artifact as PlanArtifact),
    );
    const gate = () =>
      runGate(
        {
          modelName: 'kokoro-82m',
          // The peak the plan was made for (--peak-rps 1200): the gate requires it in the config.
          model: kokoroModel({ peak_rps: 1200 }),
          configFile: 'scalegate.config.json',
          planFile: files.planFile,
          region: 'us-east-1',
          offline: true,
        },
        { assetHash: noHashing },
      );
    const passed = await gate();
    expect(passed.report).toMatch(
      /✓ rederived +every deployable value follows from .*qmax.* and .*ttotal.* and .*drill-kokoro-82m-g5xlarge-8b1b96bc\.json/,
    );
    expect(passed.exitCode, passed.report).toBe(0);
    rmSync(files.drillFile);
    const refused = await gate();
    expect(refused.exitCode).toBe(1);
    expect(refused.report).toMatch(/✗ measurements +the plan's drill measurement \(run drill-run-1/);
    expect(refused.report).toMatch(/--drill .*drill-kokoro-82m-g5xlarge-8b1b96bc\.json/);
  });

  const refusal = (f: () => unknown): string => {
    try {
      f();
    } catch (e) {
      if (isUsageError(e)) return e.message;
      throw e;
    }
    throw new Error('not refused');
  };

  it('refuses a drill that measured no lag, or only a lag from an idle endpoint (prevents a 10 s idle-start lag shrinking T_plan)', () => {
    const none = setup((fp) =>
      buildDrill({
        windows: windowsWith(),
        observer: observerWith({ breachS: null }),
        fingerprint: fp,
        sloMs: 3000,
      }),
    );
    expect(refusal(() => plan(none))).toMatch(
      /measured no policy lag \(no scale-out happened during the drill.*\): there is nothing to replace/,
    );
    const idle = setup((fp) => {
      const obs = observerWith({
        breachS: 0,
        scaleOuts: [{ atS: 10, to: 2 }],
        metric: (t) => (t < 0 ? Number.NaN : 45),
      });
      obs.metric.points = obs.metric.points.filter((x) => Number.isFinite(x.value));
      return buildDrill({ windows: windowsWith(), observer: obs, fingerprint: fp, sloMs: 3000 });
    });
    expect(refusal(() => plan(idle))).toMatch(
      /comes from a scale-out that started from an idle endpoint.*Drill with --steady-rps below the target/,
    );
  });

  it('refuses a drill of another configuration unless allowed (then recorded), and of another model (prevents pairing a lag with a measurement of something else)', () => {
    const other = setup((fp) => busyDrill({ ...fp, image_digest: 'f'.repeat(64) }));
    expect(refusal(() => plan(other))).toMatch(
      /were measured on different configurations \(image_digest .* vs f{64}\)\. A policy lag measured on another endpoint configuration/,
    );
    const allowed = plan(other, { allowConfigMismatch: true }).artifact;
    expect(allowed?.inputs.mismatch_warnings.join(' ')).toMatch(
      /Planned anyway with --allow-config-mismatch/,
    );
    const foreign = setup((fp) =>
      buildDrill({ windows: windowsWith(), observer: null, fingerprint: fp, modelName: 'reference-tts' }),
    );
    expect(refusal(() => plan(foreign))).toMatch(/drilled model reference-tts, not kokoro-82m/);
  });
});
