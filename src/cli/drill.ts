import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { type DrillInput, runDrill, runDrillMerge } from '../commands/drill.js';
import { loadModelContext, opt, usage } from '../model/index.js';
import { DRILL_OPTIONS } from '../options/drill.js';
import { addOptions, optionValues } from './options.js';
import { artifactsDirFor, jsonOption, present, stderrProgress } from './shared.js';

export function registerDrill(program: Command): void {
  const command = program
    .command('drill')
    .summary('drive a surge through the deployed policy: does it protect the SLO the plan was derived for?')
    .description(
      "Open-loop (seeded Poisson) load through an endpoint whose deployed policy is the plan's, in three phases: " +
        "steady at the plan's X_target x --start-instances requests/s (under Poisson arrivals the per-period Maximum the policy " +
        'tracks exceeds the mean, so the policy may already add instances here: recorded), surge at --surge-ratio times that ' +
        'for T_plan plus a margin, then the trough load through the scale-in alarm window and cooldown (scale-in and reversals ' +
        'counted). Refused (exit 2, with the command that fixes it) when `scalegate validate` would not be clean, unless ' +
        '--allow-policy-mismatch (drills what is deployed and records the differences), or when the endpoint runs another ' +
        'fingerprint than the plan. Records per second the offered and achieved rate, client in-flight, desired/current ' +
        'instances and alarm states; per window the p95 TTFAB from the intended send time (HDR), overflows and the share ' +
        'inside the SLO; then the alarm transitions, scaling activities and the tracked metric. Measures the policy lag ' +
        '(load step -> first breaching period -> alarm in ALARM -> scaling activity -> desired count), the scale-out to in ' +
        "service and the time until the SLO holds again, against the plan's prediction. Writes " +
        "artifacts/drill-<model>-<slug>.json and its timeline SVG; with --shard i/n --start-at T only shard i's recording " +
        '(shard 0 observes the endpoint), to merge with `scalegate drill merge`. ' +
        'The drill freezes nothing: the endpoint scales under its own policy throughout, so a run killed mid-way leaves it ' +
        'under its own policy (only the desired count was set to --start-instances before the load). ' +
        'An inference-component model (kind inference-component, a plan with its inference_component block) is drilled on its ' +
        'copy count: --start-copies copies (not instances), the copy target tracking compared with the plan, copies and instances ' +
        'observed with the copy activities and ConcurrentRequestsPerCopy; --from-zero (min copies 0) first sets it to 0 copies and ' +
        "measures its wake with the plan's retry budget, judged against the plan's wake tolerance (a wake beyond it fails the drill). " +
        'Exit codes: 0 pass: the SLO held (or a shard recorded, or a dry run), 1 fail: a full window of the steady or surge ' +
        "phase over the SLO or with overflows above the plan's max_overflow_probability of its arrivals (each window named), " +
        'even where the plan predicted it (said beside the failure), 2 refused input, 3 an AWS call or the network failed (docs/exit-codes.md); 130/143 interrupted.',
    );
  // Options after `merge` are the merge's (`drill merge a.json b.json --out x.json`), not the drill's.
  command.enablePositionalOptions();
  addOptions(command, DRILL_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(DRILL_OPTIONS, flags);
      if (values.planFile === undefined) {
        throw usage`${opt('plan')} <file> is required: the plan whose deployed policy is drilled (artifacts/plan-<model>.json from \`scalegate plan\`).`;
      }
      const context = loadModelContext(values);
      const input: DrillInput = { ...values, ...context, planFile: values.planFile as string };
      const controller = new AbortController();
      const stop = (signal: NodeJS.Signals) => () =>
        controller.abort(
          Object.assign(new Error(`interrupted by ${signal}`), { name: 'AbortError', signal }),
        );
      const onInt = stop('SIGINT');
      const onTerm = stop('SIGTERM');
      process.once('SIGINT', onInt);
      process.once('SIGTERM', onTerm);
      const deps = { progress: stderrProgress(), signal: controller.signal };
      try {
        const result = values.dryRun
          ? await runDrill(input, deps)
          : await withAwsClients({ region: context.region }, async (clients) =>
              runDrill(
                { ...input, ...(await artifactsDirFor(values.artifactsDir, clients, values.outFile)) },
                { ...deps, clients },
              ),
            );
        present(result, { json: flags.json === true });
      } catch (e) {
        if (!controller.signal.aborted) throw e;
        const signal = (controller.signal.reason as { signal?: string }).signal ?? 'SIGINT';
        process.stderr.write(
          `scalegate: drill interrupted by ${signal}: the load stopped and nothing was written; the endpoint stays under its own scaling policy (the drill freezes nothing).\n`,
        );
        process.exitCode = signal === 'SIGTERM' ? 143 : 130;
      } finally {
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
      }
    });
  const merge = command
    .command('merge')
    .summary('merge the shard files of one drill into the whole drill and judge it (no AWS call)')
    .description(
      'Reads every shard file of one drill (`scalegate drill --shard i/n --start-at T`, i = 0..n-1), refuses shards of ' +
        'different drills (plan, schedule, seed, start, settings, fingerprint) or a missing or repeated shard (exit 2, naming the file), ' +
        'adds their windows and counters, takes the endpoint observation from shard 0, judges the whole and writes ' +
        'artifacts/drill-<model>-<slug>.json with its timeline SVG (the same as `scalegate merge` given drill shards). Exit codes as `scalegate drill`.',
    )
    .argument('<files...>', 'the shard files')
    .option(
      '--out <file>',
      'where to write the drill artifact (default: artifacts/drill-<model>-<slug>.json)',
    )
    .addOption(jsonOption())
    .action((files: string[], flags: { out?: string; json?: boolean }) => {
      present(runDrillMerge({ files, ...(flags.out ? { outFile: flags.out } : {}) }), {
        json: flags.json === true,
      });
    });
  merge.exitOverride();
}
