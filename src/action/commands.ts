/**
 * From the action's inputs to the same command functions the CLI calls (src/commands), plus
 * what the report needs to show (the artifacts involved and where they are). No presentation.
 * What the action adds to a command: the measurements a step needs, found in artifacts-dir when
 * the workflow does not name them (src/commands/discover.ts, shared with the CLI).
 */
import { type AwsClients, withAwsClients, withLoadClients } from '../aws/clients.js';
import { withPricingClient } from '../aws/pricing.js';
import { resolvePlanInputs, resolveQmaxFile } from '../commands/discover.js';
import { runDrift } from '../commands/drift.js';
import { runDrill, runDrillMerge, splitFileList } from '../commands/drill.js';
import { InterruptedError } from '../commands/freeze.js';
import { runGate } from '../commands/gate.js';
import { GOODPUT_DEFAULTS, runGoodput } from '../commands/goodput.js';
import { runPlanPriced } from '../commands/plan.js';
import { priceListLookup } from '../commands/plan-price.js';
import { LADDER_DEFAULTS, runQmax } from '../commands/qmax.js';
import type { CommandResult } from '../commands/result.js';
import { runThaw } from '../commands/thaw.js';
import { runTtotal } from '../commands/ttotal.js';
import { runTune } from '../commands/tune.js';
import { runValidate } from '../commands/validate.js';
import { loadsThroughAws } from '../load/transport/transports.js';
import type { TransportKind } from '../load/types.js';
import { type DrillArtifact, loadModelContext, planFileName, readArtifact, usage } from '../model/index.js';
import { stateDir } from '../model/journal.js';
import { DRIFT_OPTIONS } from '../options/drift.js';
import { DRILL_OPTIONS } from '../options/drill.js';
import { GATE_OPTIONS } from '../options/gate.js';
import { GOODPUT_OPTIONS } from '../options/goodput.js';
import { PLAN_OPTIONS } from '../options/plan.js';
import { QMAX_OPTIONS } from '../options/qmax.js';
import { THAW_OPTIONS } from '../options/thaw.js';
import { TTOTAL_OPTIONS } from '../options/ttotal.js';
import { TUNE_OPTIONS } from '../options/tune.js';
import { VALIDATE_OPTIONS } from '../options/validate.js';
import { renderInterruption } from '../report/interrupt-text.js';
import type { ReportInput } from '../report/markdown.js';
import { VERSION } from '../version.js';
import { ACTION_COMMANDS, type ActionCommand, type Env, readOptionInputs } from './inputs.js';
import { actionProgress } from './log.js';
import { journalRecorder } from './state.js';

export interface CommandOutcome {
  result: CommandResult;
  /** The model the step was about (from the config). */
  modelName: string;
  /** What the Markdown report shows, besides the verdict. */
  report: Pick<
    ReportInput,
    'plan' | 'qmax' | 'ttotal' | 'goodput' | 'drift' | 'validate' | 'drill' | 'gate' | 'textReport'
  >;
  /** Lines for the log (discovery choices). */
  notes: string[];
}

type Runner = (env: Env) => Promise<CommandOutcome>;

/** Commands this build of the action can run. The others are refused, never imitated. */
const RUNNERS: Partial<Record<ActionCommand, Runner>> = {
  drift: runDriftStep,
  qmax: runQmaxStep,
  goodput: runGoodputStep,
  ttotal: runTtotalStep,
  plan: (env) => runPlanStep(env),
  tune: async (env) => runTuneStep(env),
  validate: runValidateStep,
  drill: runDrillStep,
  thaw: runThawStep,
  gate: runGateStep,
};

export const availableCommands = (): ActionCommand[] =>
  ACTION_COMMANDS.filter((c) => RUNNERS[c] !== undefined);

export async function runActionCommand(command: ActionCommand, env: Env): Promise<CommandOutcome> {
  const runner = RUNNERS[command];
  if (!runner) {
    throw usage`command ${command}: not available in this version of scalegate (${VERSION}); this action can run: ${availableCommands().join(', ')}.`;
  }
  return runner(env);
}

/** Progress in the step's log (every line a command logs is printed inert). */
const progress = () => actionProgress();

const located = <A>(artifact: A | null, file: string | undefined) =>
  artifact && file !== undefined ? { artifact, file } : null;

async function runPlanStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, PLAN_OPTIONS);
  const { modelName, model } = loadModelContext({
    modelName: values.modelName,
    configFile: values.configFile,
  });
  const artifactsDir = values.artifactsDir as string;
  const { qmax, ttotal, goodputFile, notes, chosen } = resolvePlanInputs(
    values,
    artifactsDir,
    modelName,
    model,
  );
  notes.push(...chosen);
  const input = { ...values, modelName, model, qmaxFile: qmax.file, ttotalFile: ttotal?.file, goodputFile };
  const asksApi = (values.priceSource ?? 'auto') === 'auto' || values.priceSource === 'api';
  // The Price List API is asked only when the price source may need it (auto, api).
  const result = asksApi
    ? await withPricingClient(model.region, {}, (pricing) =>
        runPlanPriced(input, { version: VERSION, priceLookup: priceListLookup(pricing) }),
      )
    : await runPlanPriced(input, { version: VERSION });
  return {
    result,
    modelName,
    report: { plan: located(result.artifact, result.written[0]), qmax, ttotal },
    notes,
  };
}

/** The tune: candidate policies scored by the fleet simulator on a trace (no AWS call). */
function runTuneStep(env: Env): CommandOutcome {
  const values = readOptionInputs(env, TUNE_OPTIONS);
  const { modelName, model } = loadModelContext({
    modelName: values.modelName,
    configFile: values.configFile,
  });
  const result = runTune({ ...values, modelName, model }, { version: VERSION, progress: progress() });
  return { result, modelName, report: { textReport: result.report }, notes: [] };
}

async function runDriftStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, DRIFT_OPTIONS);
  const context = loadModelContext(values);
  const result = await withAwsClients({ region: context.region }, (clients) =>
    runDrift({ ...values, ...context }, { clients, progress: progress() }),
  );
  return {
    result,
    modelName: context.modelName,
    report: { drift: located(result.artifact, result.written[0]) },
    notes: [],
  };
}

async function runValidateStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, VALIDATE_OPTIONS);
  const context = loadModelContext(values);
  const result = await withAwsClients({ region: context.region }, (clients) =>
    runValidate({ ...values, ...context }, { clients, progress: progress() }),
  );
  return {
    result,
    modelName: context.modelName,
    report: { validate: located(result.artifact, result.written[0]) },
    notes: [],
  };
}

/**
 * The drill, or (input merge) the merge of its shards' files. A shard's recording is not judged:
 * the step publishes its report as text; the merge and a single drill publish the drill section.
 */
async function runDrillStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, DRILL_OPTIONS);
  const artifactsDir = values.artifactsDir as string;
  if (values.mergeFiles !== undefined) {
    const result = runDrillMerge({
      files: splitFileList(values.mergeFiles),
      artifactsDir,
      ...(values.outFile !== undefined ? { outFile: values.outFile } : {}),
    });
    return {
      result,
      modelName: result.artifact?.model_name ?? 'unknown model',
      report: { drill: located(result.artifact, result.written[0]) },
      notes: [],
    };
  }
  const context = loadModelContext(values);
  const planFile = values.planFile ?? `${artifactsDir}/${planFileName(context.modelName)}`;
  const input = { ...values, ...context, planFile };
  const result = values.dryRun
    ? await runDrill(input, { progress: progress() })
    : await withAwsClients({ region: context.region }, (clients) =>
        runDrill(input, { clients, progress: progress() }),
      );
  const whole = result.artifact?.kind === 'drill' ? (result.artifact as DrillArtifact) : null;
  return {
    result,
    modelName: context.modelName,
    report: whole ? { drill: located(whole, result.written[0]) } : { textReport: result.report },
    notes: [],
  };
}

/** A cancelled measurement (SIGINT/SIGTERM from the runner): restored by the command; exit 1. */
function interrupted(e: unknown, command: string): unknown {
  if (!(e instanceof InterruptedError)) return e;
  return new Error(
    renderInterruption(command, e.signal, e.restore, 'the post step retries from the thaw journal'),
  );
}

const actionCommandLine = (command: string, modelName: string, endpoint: string): string =>
  `scalegate ${command} --model ${modelName} --endpoint ${endpoint} (GitHub Action)`;

/**
 * qmax and goodput: the endpoint frozen (its journal recorded for the post step), the load through
 * AWS unless it is a dry run; the artifact published, or the command's text when there is none.
 */
async function runLoadStep<K extends 'qmax' | 'goodput'>(
  kind: K,
  context: { region: string; modelName: string },
  options: { dryRun?: boolean; transport?: TransportKind; maxConcurrency: number },
  run: (deps: {
    clients?: AwsClients;
    progress: ReturnType<typeof progress>;
    onJournal?: ReturnType<typeof journalRecorder>;
  }) => Promise<CommandResult<unknown>>,
): Promise<CommandOutcome> {
  const throughAws = loadsThroughAws(options);
  try {
    const result = await withLoadClients(
      throughAws,
      { region: context.region, maxConcurrency: options.maxConcurrency },
      (clients) =>
        run(
          clients
            ? { clients, progress: progress(), onJournal: journalRecorder() }
            : { progress: progress() },
        ),
    );
    const artifact = (result.artifact as { kind?: string } | null)?.kind === kind ? result.artifact : null;
    return {
      result,
      modelName: context.modelName,
      report: {
        [kind]: artifact ? { artifact, file: result.written[0] ?? null } : null,
        textReport: artifact ? null : result.report,
      } as CommandOutcome['report'],
      notes: [],
    };
  } catch (e) {
    throw interrupted(e, kind);
  }
}

function runQmaxStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, QMAX_OPTIONS);
  const context = loadModelContext(values);
  const input = {
    ...values,
    ...context,
    stateDir: stateDir(),
    commandLine: actionCommandLine('qmax', context.modelName, context.endpoint),
  };
  const maxConcurrency = values.maxConcurrency ?? LADDER_DEFAULTS.adaptive.maxConcurrency;
  return runLoadStep('qmax', context, { ...values, maxConcurrency }, (deps) => runQmax(input, deps));
}

function runGoodputStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, GOODPUT_OPTIONS);
  const context = loadModelContext(values);
  const input = {
    ...values,
    ...context,
    stateDir: stateDir(),
    commandLine: actionCommandLine('goodput', context.modelName, context.endpoint),
  };
  const maxConcurrency = values.maxOutstanding ?? GOODPUT_DEFAULTS.maxOutstanding;
  return runLoadStep('goodput', context, { ...values, maxConcurrency }, (deps) => runGoodput(input, deps));
}

async function runTtotalStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, TTOTAL_OPTIONS);
  const context = loadModelContext(values);
  const artifactsDir = values.artifactsDir as string;
  const resolved = resolveQmaxFile(values.qmaxFile, artifactsDir, context.modelName, context.model);
  const notes = [...resolved.notes, ...resolved.chosen];
  const qmaxFile = resolved.qmaxFile;
  const file = qmaxFile;
  try {
    const result = await withAwsClients({ region: context.region }, (clients) =>
      runTtotal(
        {
          ...values,
          ...context,
          qmaxFile: file,
          stateDir: stateDir(),
          commandLine: actionCommandLine('ttotal', context.modelName, context.endpoint),
        },
        { clients, progress: progress(), onJournal: journalRecorder() },
      ),
    );
    return {
      result,
      modelName: context.modelName,
      report: {
        ttotal: result.artifact ? { artifact: result.artifact, file: result.written[0] ?? null } : null,
        qmax: { file, artifact: readArtifact('qmax', file) },
        textReport: result.artifact ? null : result.report,
      },
      notes,
    };
  } catch (e) {
    throw interrupted(e, 'ttotal');
  }
}

async function runThawStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, THAW_OPTIONS);
  const context = loadModelContext(values);
  const result = await withAwsClients({ region: context.region }, (clients) =>
    runThaw(
      {
        endpoint: context.endpoint,
        variant: context.variant,
        stateDir: stateDir(),
        clearSuspension: values.clearSuspension,
      },
      { clients, progress: progress() },
    ),
  );
  return { result, modelName: context.modelName, report: { textReport: result.report }, notes: [] };
}

/**
 * The gate needs the digest of the image being deployed: for `image_uri` the pinned digest; for
 * `container_dir` the CDK asset hash, computed with aws-cdk-lib loaded at run time from the
 * node_modules above the bundle (the workspace's, when the composite action staged it there).
 * Without aws-cdk-lib there is no honest digest: refused, saying how to get one.
 */
async function runGateStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, GATE_OPTIONS);
  const { modelName, model, configFile, config } = loadModelContext({
    modelName: values.modelName,
    configFile: values.configFile,
  });
  const result = await runGate({
    ...values,
    modelName,
    model,
    configFile,
    attestationConfig: config.attestation,
    githubRepository: env.GITHUB_REPOSITORY,
  });
  const report = result.artifact;
  return {
    result,
    modelName,
    report: {
      gate: report ? { passed: report.passed, checks: report.checks, offline: report.offline } : null,
      textReport: result.report,
    },
    notes: [],
  };
}
