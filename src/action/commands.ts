/**
 * From the action's inputs to the same command functions the CLI calls (src/commands), plus
 * what the report needs to show (the artifacts involved and where they are). No presentation.
 * What the action adds to a command: the measurements a step needs, found in artifacts-dir when
 * the workflow does not name them (src/action/discover.ts).
 */
import { withAwsClients } from '../aws/clients.js';
import { runDrift } from '../commands/drift.js';
import { InterruptedError } from '../commands/freeze.js';
import { runGate } from '../commands/gate.js';
import { GOODPUT_DEFAULTS, runGoodput } from '../commands/goodput.js';
import { runPlan } from '../commands/plan.js';
import { LADDER_DEFAULTS, runQmax } from '../commands/qmax.js';
import type { CommandResult } from '../commands/result.js';
import { runThaw } from '../commands/thaw.js';
import { runTtotal } from '../commands/ttotal.js';
import { runValidate } from '../commands/validate.js';
import { createProgressRenderer } from '../load/progress.js';
import {
  fingerprintDifferences,
  type GoodputArtifact,
  loadModelContext,
  type QmaxArtifact,
  readArtifact,
  type TtotalArtifact,
  usage,
} from '../model/index.js';
import { stateDir } from '../model/journal.js';
import { DRIFT_OPTIONS } from '../options/drift.js';
import { GATE_OPTIONS } from '../options/gate.js';
import { GOODPUT_OPTIONS } from '../options/goodput.js';
import { PLAN_OPTIONS } from '../options/plan.js';
import { QMAX_OPTIONS } from '../options/qmax.js';
import { THAW_OPTIONS } from '../options/thaw.js';
import { TTOTAL_OPTIONS } from '../options/ttotal.js';
import { VALIDATE_OPTIONS } from '../options/validate.js';
import { renderInterruption } from '../report/interrupt-text.js';
import type { ReportInput } from '../report/markdown.js';
import { VERSION } from '../version.js';
import {
  discoverGoodput,
  discoverMeasurements,
  type Found,
  listModelArtifacts,
  newestFirst,
} from './discover.js';
import { ACTION_COMMANDS, type ActionCommand, type Env, readOptionInputs } from './inputs.js';

export interface CommandOutcome {
  result: CommandResult;
  /** The model the step was about (from the config). */
  modelName: string;
  /** What the Markdown report shows, besides the verdict. */
  report: Pick<
    ReportInput,
    'plan' | 'qmax' | 'ttotal' | 'goodput' | 'drift' | 'validate' | 'gate' | 'textReport'
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
  plan: async (env) => runPlanStep(env),
  validate: runValidateStep,
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

/** Progress in the step's log. */
const progress = () => createProgressRenderer(process.stdout);

const located = <A>(artifact: A | null, file: string | undefined) =>
  artifact && file !== undefined ? { artifact, file } : null;

function readLocated<K extends 'qmax' | 'ttotal'>(
  kind: K,
  file: string | undefined,
): Found<K extends 'qmax' ? QmaxArtifact : TtotalArtifact> | null {
  if (file === undefined) return null;
  return { file, artifact: readArtifact(kind, file) as K extends 'qmax' ? QmaxArtifact : TtotalArtifact };
}

function runPlanStep(env: Env): CommandOutcome {
  const values = readOptionInputs(env, PLAN_OPTIONS);
  const { modelName, model } = loadModelContext({
    modelName: values.modelName,
    configFile: values.configFile,
  });
  const artifactsDir = values.artifactsDir as string;
  const notes: string[] = [];

  let qmax = readLocated('qmax', values.qmaxFile);
  let ttotal = readLocated('ttotal', values.ttotalFile);
  if (!qmax) {
    const found = discoverMeasurements(artifactsDir, modelName, model);
    notes.push(...found.notes);
    if (!found.qmax) {
      throw usage`no qmax artifact for ${modelName} in ${artifactsDir} measured on ${model.instance_type}: run the qmax step first, or name the file with the qmax input.`;
    }
    qmax = found.qmax;
    notes.push(`qmax: ${qmax.file} (discovered: newest for this fingerprint)`);
    if (!ttotal && values.assumeTTotalS === undefined && found.ttotal) {
      ttotal = found.ttotal;
      notes.push(`ttotal: ${ttotal.file} (discovered: same fingerprint as the qmax)`);
    }
  } else if (!ttotal && values.assumeTTotalS === undefined) {
    const q = qmax;
    const candidates = listModelArtifacts('ttotal', artifactsDir, modelName, notes)
      .filter((t) => fingerprintDifferences(t.artifact.fingerprint, q.artifact.fingerprint).length === 0)
      .sort(newestFirst);
    ttotal = candidates.find((t) => t.artifact.qmax_run_id === q.artifact.run_id) ?? candidates[0] ?? null;
    if (ttotal) notes.push(`ttotal: ${ttotal.file} (discovered: same fingerprint as the qmax)`);
  }

  let goodputFile = values.goodputFile;
  if (goodputFile === undefined) {
    const found = discoverGoodput(artifactsDir, modelName, qmax.artifact, notes);
    if (found) {
      goodputFile = found.file;
      notes.push(`goodput: ${found.file} (discovered: same fingerprint and SLO as the qmax)`);
    }
  }
  const result = runPlan(
    { ...values, modelName, model, qmaxFile: qmax.file, ttotalFile: ttotal?.file, goodputFile },
    { version: VERSION },
  );
  return {
    result,
    modelName,
    report: { plan: located(result.artifact, result.written[0]), qmax, ttotal },
    notes,
  };
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

/** A cancelled measurement (SIGINT/SIGTERM from the runner): restored by the command; exit 1. */
function interrupted(e: unknown, command: string): unknown {
  if (!(e instanceof InterruptedError)) return e;
  return new Error(
    renderInterruption(command, e.signal, e.restore, 'the post step retries from the thaw journal'),
  );
}

const actionCommandLine = (command: string, modelName: string, endpoint: string): string =>
  `scalegate ${command} --model ${modelName} --endpoint ${endpoint} (GitHub Action)`;

async function runQmaxStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, QMAX_OPTIONS);
  const context = loadModelContext(values);
  const input = {
    ...values,
    ...context,
    stateDir: stateDir(),
    commandLine: actionCommandLine('qmax', context.modelName, context.endpoint),
  };
  const live = values.transport !== 'http';
  try {
    const result =
      live && !values.dryRun
        ? await withAwsClients(
            {
              region: context.region,
              maxConcurrency: values.maxConcurrency ?? LADDER_DEFAULTS.adaptive.maxConcurrency,
            },
            (clients) => runQmax(input, { clients, progress: progress() }),
          )
        : await runQmax(input, { progress: progress() });
    const artifact =
      result.artifact && (result.artifact as { kind?: string }).kind === 'qmax'
        ? (result.artifact as QmaxArtifact)
        : null;
    return {
      result,
      modelName: context.modelName,
      report: {
        qmax: artifact ? { artifact, file: result.written[0] ?? null } : null,
        textReport: artifact ? null : result.report,
      },
      notes: [],
    };
  } catch (e) {
    throw interrupted(e, 'qmax');
  }
}

async function runGoodputStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, GOODPUT_OPTIONS);
  const context = loadModelContext(values);
  const input = {
    ...values,
    ...context,
    stateDir: stateDir(),
    commandLine: actionCommandLine('goodput', context.modelName, context.endpoint),
  };
  const live = values.transport !== 'http';
  try {
    const result =
      live && !values.dryRun
        ? await withAwsClients(
            {
              region: context.region,
              maxConcurrency: values.maxOutstanding ?? GOODPUT_DEFAULTS.maxOutstanding,
            },
            (clients) => runGoodput(input, { clients, progress: progress() }),
          )
        : await runGoodput(input, { progress: progress() });
    const artifact =
      result.artifact && (result.artifact as { kind?: string }).kind === 'goodput'
        ? (result.artifact as GoodputArtifact)
        : null;
    return {
      result,
      modelName: context.modelName,
      report: {
        goodput: artifact ? { artifact, file: result.written[0] ?? null } : null,
        textReport: artifact ? null : result.report,
      },
      notes: [],
    };
  } catch (e) {
    throw interrupted(e, 'goodput');
  }
}

async function runTtotalStep(env: Env): Promise<CommandOutcome> {
  const values = readOptionInputs(env, TTOTAL_OPTIONS);
  const context = loadModelContext(values);
  const artifactsDir = values.artifactsDir as string;
  const notes: string[] = [];
  let qmaxFile = values.qmaxFile;
  if (qmaxFile === undefined) {
    const found = discoverMeasurements(artifactsDir, context.modelName, context.model);
    notes.push(...found.notes.filter((n) => !n.startsWith('no ttotal')));
    if (!found.qmax) {
      throw usage`no qmax artifact for ${context.modelName} in ${artifactsDir}: ttotal probes at rungs the qmax ladder measured. Run the qmax step first, or name its file with the qmax input.`;
    }
    qmaxFile = found.qmax.file;
    notes.push(`qmax: ${qmaxFile} (discovered: newest for this fingerprint)`);
  }
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
        { clients, progress: progress() },
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
      { endpoint: context.endpoint, variant: context.variant, stateDir: stateDir() },
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
  const { modelName, model, configFile } = loadModelContext({
    modelName: values.modelName,
    configFile: values.configFile,
  });
  const result = await runGate({ ...values, modelName, model, configFile });
  const report = result.artifact;
  return {
    result,
    modelName,
    report: {
      gate: report ? { passed: report.passed, checks: report.checks } : null,
      textReport: result.report,
    },
    notes: [],
  };
}
