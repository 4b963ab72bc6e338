// The deployed policy on trial, end to end on the local SageMaker: the emulated Kokoro-82M
// ml.g5.xlarge device with its measured start-up (both from the committed real artifacts) at a time
// scale, the chain measured on that very endpoint (qmax -> ttotal -> plan), then two drills at
// k = 1.25 with the same arrival seed:
//
//   npm run bench:policy-drill [-- --time-scale 0.25 --trough-s 30]
//
// SEED: the closed-loop rule (1 - h) Q_max (`plan --policy-rule seed`, verdict stop), applied with
//   `local apply`, drilled at its own steady load (X_target per instance);
// CHOSEN: the surge-safe policy `plan` deploys (the target in the tracked metric's open-loop
//   units), drilled at its steady load (lambda_safe per instance).
// The peer is the seed's rule in the same run: its SLO verdict, overflows and instance-minutes
// beside the chosen one's, and their ratio.
//
import { join } from 'node:path';
import { runDrill } from '../src/commands/drill.js';
import { runLocalApply } from '../src/commands/local-apply.js';
import { runPlan } from '../src/commands/plan.js';
import { type DrillArtifact, type PlanArtifact, readArtifact } from '../src/model/index.js';
import { option, withKokoroChain } from './lib/kokoro-chain.js';

const timeScale = Number(option('time-scale', '0.25'));
const troughS = Number(option('trough-s', '30'));
if (!(timeScale > 0)) throw new Error('--time-scale must be > 0');

await withKokoroChain('policy-drill', timeScale, async (ctx) => {
  const { clients, loadClient, common, modelName, model, sloMs, out, prompts, qmaxFile, ttotalFile } = ctx;
  const { planFile, say, print, progress, figures } = ctx;
  const p = ctx.plan;
  const plan = { exitCode: ctx.planExitCode };
  const seedFile = join(out, 'plan-seed.json');
  const seedPlan = runPlan(
    { modelName, model, qmaxFile, ttotalFile, sloMs, policyRule: 'seed', outFile: seedFile },
    { version: 'bench' },
  );
  print(seedPlan.report);
  figures.push(['plan (surge-safe): verdict / exit', `${p.verdict} / ${plan.exitCode}`]);
  figures.push([
    'plan --policy-rule seed: verdict / exit',
    `${seedPlan.artifact?.verdict} / ${seedPlan.exitCode}`,
  ]);

  const apply = async (file: string) => {
    const r = await runLocalApply({ ...common, planFile: file }, { clients });
    print(r.report);
    if (r.exitCode !== 0) throw new Error('local apply failed');
  };
  const drill = async (label: string, file: string) => {
    say(`drill ${label}`);
    const r = await runDrill(
      {
        ...common,
        model,
        planFile: file,
        surgeRatio: 1.25,
        troughS,
        promptsFile: prompts,
        outFile: join(out, `drill-${label}.json`),
      },
      { clients, progress, loadClient },
    );
    print(r.report);
    return { artifact: readArtifact('drill', r.written[0] as string), exitCode: r.exitCode };
  };

  say("local apply: the seed's closed-loop rule");
  await apply(seedFile);
  const seed = await drill('seed', seedFile);
  say('local apply: the surge-safe policy');
  await apply(planFile);
  const chosen = await drill('chosen', planFile);

  const row = (label: string, d: { artifact: DrillArtifact; exitCode: number }, planned: PlanArtifact) => {
    const a = d.artifact;
    const o = a.analysis.observed;
    figures.push([
      `${label}: target / steady rate per instance`,
      `${planned.deployable.scaling_target_value} (${planned.deployable.scaling_metric}) / ${a.phases.find((ph) => ph.name === 'steady')?.rate_rps.toFixed(2)} requests/s`,
    ]);
    figures.push([
      `${label}: slo_held / verdict / exit`,
      `${a.slo_held} / ${a.verdict} / ${d.exitCode} (as predicted ${a.as_predicted})`,
    ]);
    figures.push([
      `${label}: windows outside the SLO (steady, surge)`,
      `${a.slo?.broken_windows.length ?? 'n/a'} (${o.windows_over_slo.steady}, ${o.windows_over_slo.surge})`,
    ]);
    figures.push([`${label}: overflows steady / surge`, `${o.overflows.steady} / ${o.overflows.surge}`]);
    figures.push([
      `${label}: instance-minutes (steady + surge), max desired`,
      `${o.instance_minutes ?? 'n/a'}, ${o.max_desired ?? 'n/a'}`,
    ]);
    figures.push([
      `${label}: policy lag (measured)`,
      `${a.analysis.policy_lag.seconds ?? 'n/a'} s (${a.analysis.policy_lag.evaluation ?? 'n/a'})`,
    ]);
  };
  row('SEED', seed, seedPlan.artifact as PlanArtifact);
  row('CHOSEN', chosen, p);
  const im = (d: { artifact: DrillArtifact }) => d.artifact.analysis.observed.instance_minutes ?? 0;
  figures.push([
    'instance-minutes CHOSEN / SEED',
    `${im(chosen).toFixed(2)} / ${im(seed).toFixed(2)} (ratio ${im(seed) > 0 ? (im(chosen) / im(seed)).toFixed(3) : 'n/a'})`,
  ]);
  figures.push(['timelines (SVG)', `${join(out, 'drill-seed.svg')}, ${join(out, 'drill-chosen.svg')}`]);
});
