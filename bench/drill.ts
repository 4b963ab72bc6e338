// The surge drill, end to end on the local SageMaker: the emulated Kokoro-82M ml.g5.xlarge device
// with its measured start-up (both from the committed real artifacts) at a time scale, the chain
// measured on that very endpoint (qmax -> ttotal -> plan), the plan's policy applied with
// `local apply`, then three drills at k = 1.25 and the plan re-derived from the drill:
//
//   npm run bench:drill [-- --time-scale 0.25 --trough-s 30 --skip as-sized]
//
// A. as sized: the steady load the plan sizes each instance for (X_target x 1 instance): on a
//    serial device that is its whole throughput, so the policy already scales in the steady phase,
//    as surge_survival's no-surge baseline predicts;
// B. from a busy endpoint: steady at 0.8 x X_target (the policy holds it), the surge to 1.25 x that
//    starts the scale-out: the measured policy lag against the alarm's configuration;
// C. the peer run: the same drill as B against a deliberately wrong policy (scale-out target 2 x
//    the plan's, applied with --allow-policy-mismatch), which must break the plan's promise where
//    B goes as predicted (each drill's verdict is whether the SLO held: slo_held);
// then `plan --drill B`: the measured lag replaces the plan's 60 s bound.
//
// Phases are the drill's defaults from the plan (steady B/C shortened to 60 s: no scale-out is
// expected there), the trough --trough-s (the scale-in alarm needs 15 minutes of low load; the
// default trough would add ~20 minutes). Prints every report and the figures side by side.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runDrill } from '../src/commands/drill.js';
import { runLocalApply } from '../src/commands/local-apply.js';
import { runPlan } from '../src/commands/plan.js';
import { type DrillArtifact, readArtifact } from '../src/model/index.js';
import { option, withKokoroChain } from './lib/kokoro-chain.js';

const timeScale = Number(option('time-scale', '0.25'));
const troughS = Number(option('trough-s', '30'));
const skip = option('skip', '');
if (!(timeScale > 0)) throw new Error('--time-scale must be > 0');

await withKokoroChain('drill', timeScale, async (ctx) => {
  const { clients, loadClient, common, modelName, model, sloMs, out, prompts, qmaxFile, ttotalFile } = ctx;
  const { planFile, say, print, progress, figures } = ctx;
  const p = ctx.plan;
  const apply = async (file: string) => {
    const r = await runLocalApply({ ...common, planFile: file }, { clients });
    print(r.report);
    if (r.exitCode !== 0) throw new Error('local apply failed');
  };
  say("local apply: the plan's policy");
  await apply(planFile);

  const drill = async (label: string, extra: Record<string, unknown>): Promise<DrillArtifact> => {
    say(`drill ${label}`);
    const r = await runDrill(
      {
        ...common,
        model,
        planFile,
        surgeRatio: 1.25,
        troughS,
        promptsFile: prompts,
        outFile: join(out, `drill-${label}.json`),
        ...extra,
      },
      { clients, progress, loadClient },
    );
    print(r.report);
    return readArtifact('drill', r.written[0] as string);
  };

  const xTarget = p.derived.x_target_rps as number;
  if (!skip.includes('as-sized')) {
    const a = await drill('A-as-sized', { steadyS: 120 });
    figures.push([
      'A as sized: verdict / policy lag / evaluation',
      `${a.verdict} (SLO held ${a.slo_held}, as predicted ${a.as_predicted}) / ${a.analysis.policy_lag.seconds ?? 'n/a'} s / ${a.analysis.policy_lag.evaluation ?? 'n/a'} (load step ${a.analysis.scale_outs[0]?.load_step ?? 'none'})`,
    ]);
    figures.push([
      'A overflows steady / surge',
      `${a.analysis.observed.overflows.steady} / ${a.analysis.observed.overflows.surge}`,
    ]);
  }
  const b = await drill('B-busy', { steadyRps: 0.8 * xTarget, steadyS: 60 });
  const chain = b.analysis.scale_outs.find((c) => c.evaluation === 'full') ?? b.analysis.scale_outs[0];
  figures.push(['B verdict', `${b.verdict} (SLO held ${b.slo_held}, as predicted ${b.as_predicted})`]);
  figures.push([
    'B policy lag (measured)',
    `${b.analysis.policy_lag.seconds ?? 'n/a'} s (${b.analysis.policy_lag.evaluation ?? 'n/a'})`,
  ]);
  figures.push([
    'B alarm detection vs configured',
    `${chain?.detection_s ?? 'n/a'} s vs ${chain?.configured_detection_s ?? 'n/a'} s (ratio ${chain?.detection_s && chain.configured_detection_s ? (chain.detection_s / chain.configured_detection_s).toFixed(3) : 'n/a'})`,
  ]);
  figures.push([
    "B policy lag vs the plan's",
    `${b.analysis.policy_lag.seconds ?? 'n/a'} s vs ${p.measured.policy_lag_s} s (${p.measured.policy_lag_bounded ? 'bound' : 'computed'})`,
  ]);
  figures.push([
    'B scale-out to in service',
    `${chain?.scale_out_s ?? 'n/a'} s (T_total ${p.measured.t_total_s.toFixed(1)} s measured by ttotal)`,
  ]);
  figures.push([
    'B overflow within T_plan: predicted / observed',
    `${((p.derived.surge_overflow_probability ?? 0) * 100).toFixed(1)} % / ${b.analysis.observed.surge_overflowed_within_t_plan ? 'yes' : 'no'} (${b.analysis.observed.overflows.surge} in the surge)`,
  ]);
  figures.push(['B time until the SLO holds again', `${b.analysis.slo_recovered_s ?? 'never'} s`]);

  const drilled = runPlan(
    {
      modelName,
      model,
      qmaxFile,
      ttotalFile,
      sloMs,
      drillFile: join(out, 'drill-B-busy.json'),
      outFile: join(out, 'plan-drilled.json'),
    },
    { version: 'bench' },
  );
  print(drilled.report);
  figures.push([
    'plan --drill B: T_plan before / after',
    `${p.derived.t_plan_s.toFixed(1)} s / ${drilled.artifact?.derived.t_plan_s.toFixed(1)} s (policy lag ${drilled.artifact?.measured.policy_lag_origin})`,
  ]);

  if (!skip.includes('wrong')) {
    const wrong = JSON.parse(JSON.stringify(p));
    wrong.deployable.scaling_target_value *= 2;
    const wrongFile = join(out, 'plan-wrong.json');
    writeFileSync(wrongFile, JSON.stringify(wrong));
    say("local apply: the wrong policy (scale-out target 2 x the plan's)");
    await apply(wrongFile);
    const c = await drill('C-wrong-policy', {
      steadyRps: 0.8 * xTarget,
      steadyS: 60,
      allowPolicyMismatch: true,
    });
    figures.push([
      'C (wrong policy) verdict / windows outside the SLO / beyond the plan',
      `${c.verdict} (as predicted ${c.as_predicted}) / ${c.slo?.broken_windows.length ?? 'n/a'} / ${c.broken_windows.length}`,
    ]);
    figures.push([
      'overflows in the surge: C / B',
      `${c.analysis.observed.overflows.surge} / ${b.analysis.observed.overflows.surge} (ratio ${b.analysis.observed.overflows.surge > 0 ? (c.analysis.observed.overflows.surge / b.analysis.observed.overflows.surge).toFixed(2) : 'inf'})`,
    ]);
  }
});
