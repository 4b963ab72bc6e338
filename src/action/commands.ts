/**
 * From the action's inputs to the same command functions the CLI calls (src/commands), plus
 * what the report needs to show (the artifacts involved and where they are). No presentation.
 */
import { join } from 'node:path';
import { createAwsClients, destroyAwsClients } from '../aws/clients.js';
import { loadModelContext } from '../cli/shared.js';
import { runDrift } from '../commands/drift.js';
import { awsFreezeAdapters, InterruptedError, installSignalGuard } from '../commands/freeze.js';
import { runGate } from '../commands/gate.js';
import { runPlan } from '../commands/plan.js';
import { LADDER_DEFAULTS, runQmax } from '../commands/qmax.js';
import type { CommandResult } from '../commands/result.js';
import { runThaw } from '../commands/thaw.js';
import { runTtotal } from '../commands/ttotal.js';
import { runValidate } from '../commands/validate.js';
import { createProgressRenderer } from '../load/progress.js';
import { containerAssetHash } from '../local/asset-hash.js';
import {
  driftFileName,
  fingerprintDifferences,
  planFileName,
  type QmaxArtifact,
  readArtifact,
  type TtotalArtifact,
  UsageError,
  validateFileName,
} from '../model/index.js';
import { stateDir } from '../model/journal.js';
import type { ReportInput } from '../report/markdown.js';
import { VERSION } from '../version.js';
import { discoverMeasurements, type Found, listModelArtifacts, newestFirst } from './discover.js';
import { ACTION_COMMANDS, type ActionCommand, type ActionInputs } from './inputs.js';

export interface CommandOutcome {
  result: CommandResult;
  /** The model the step was about (from the config). */
  modelName: string;
  /** What the Markdown report shows, besides the verdict. */
  report: Pick<ReportInput, 'plan' | 'qmax' | 'ttotal' | 'drift' | 'validate' | 'gate' | 'textReport'>;
  /** Lines for the log (discovery choices). */
  notes: string[];
}

type Runner = (inputs: ActionInputs) => Promise<CommandOutcome>;

/** Commands this build of the action can run. The others are refused, never imitated. */
const RUNNERS: Partial<Record<ActionCommand, Runner>> = {
  drift: runDriftStep,
  qmax: runQmaxStep,
  ttotal: runTtotalStep,
  plan: async (inputs) => runPlanStep(inputs),
  validate: runValidateStep,
  thaw: runThawStep,
  gate: runGateStep,
};

export const availableCommands = (): ActionCommand[] =>
  ACTION_COMMANDS.filter((c) => RUNNERS[c] !== undefined);

export async function runActionCommand(inputs: ActionInputs): Promise<CommandOutcome> {
  const runner = RUNNERS[inputs.command];
  if (!runner) {
    throw new UsageError(
      `command ${inputs.command}: not available in this version of scalegate (${VERSION}); this action can run: ${availableCommands().join(', ')}.`,
    );
  }
  return runner(inputs);
}

function readLocated<K extends 'qmax' | 'ttotal'>(
  kind: K,
  file: string | undefined,
): Found<K extends 'qmax' ? QmaxArtifact : TtotalArtifact> | null {
  if (file === undefined) return null;
  return { file, artifact: readArtifact(kind, file) as K extends 'qmax' ? QmaxArtifact : TtotalArtifact };
}

function runPlanStep(inputs: ActionInputs): CommandOutcome {
  const context = loadModelContext({ model: inputs.model, config: inputs.config });
  const { modelName, model } = context;
  const notes: string[] = [];
  if (inputs.ttotal !== undefined && inputs.assumeTTotal !== undefined) {
    throw new UsageError(
      'inputs ttotal and assume-t-total both given: a plan uses the measured T_total or a stated one, not both.',
    );
  }

  let qmax = readLocated('qmax', inputs.qmax);
  let ttotal = readLocated('ttotal', inputs.ttotal);
  if (!qmax) {
    const found = discoverMeasurements(inputs.artifactsDir, modelName, model);
    notes.push(...found.notes);
    if (!found.qmax) {
      throw new UsageError(
        `no qmax artifact for ${modelName} in ${inputs.artifactsDir} measured on ${model.instance_type}: run the qmax step first, or name the file with the qmax input.`,
      );
    }
    qmax = found.qmax;
    notes.push(`qmax: ${qmax.file} (discovered: newest for this fingerprint)`);
    if (!ttotal && inputs.assumeTTotal === undefined && found.ttotal) {
      ttotal = found.ttotal;
      notes.push(`ttotal: ${ttotal.file} (discovered: same fingerprint as the qmax)`);
    }
  } else if (!ttotal && inputs.assumeTTotal === undefined) {
    const q = qmax;
    const candidates = listModelArtifacts('ttotal', inputs.artifactsDir, modelName, notes)
      .filter((t) => fingerprintDifferences(t.artifact.fingerprint, q.artifact.fingerprint).length === 0)
      .sort(newestFirst);
    ttotal = candidates.find((t) => t.artifact.qmax_run_id === q.artifact.run_id) ?? candidates[0] ?? null;
    if (ttotal) notes.push(`ttotal: ${ttotal.file} (discovered: same fingerprint as the qmax)`);
  }

  const outFile = inputs.out ?? join(inputs.artifactsDir, planFileName(modelName));
  const result = runPlan({
    modelName,
    model,
    qmaxFile: qmax.file,
    ttotalFile: ttotal?.file,
    assumeTTotalS: inputs.assumeTTotal,
    overrides: {
      peakRps: inputs.peakRps,
      peakStreams: inputs.peakStreams,
      troughRps: inputs.troughRps,
      troughStreams: inputs.troughStreams,
      surgeRatio: inputs.surgeRatio,
      sloMs: inputs.sloMs,
      minInstancesFloor: inputs.minInstancesFloor,
    },
    allowConfigMismatch: inputs.allowConfigMismatch,
    outFile,
    failOnWarn: inputs.failOn === 'warn',
    version: VERSION,
  });
  return {
    result,
    modelName,
    report: {
      plan: result.artifact ? { artifact: result.artifact, file: outFile } : null,
      qmax,
      ttotal,
    },
    notes,
  };
}

function modelContext(inputs: ActionInputs) {
  return loadModelContext({
    model: inputs.model,
    config: inputs.config,
    endpoint: inputs.endpoint,
    region: inputs.region,
  });
}

async function runDriftStep(inputs: ActionInputs): Promise<CommandOutcome> {
  const context = modelContext(inputs);
  const outFile = inputs.out ?? join(inputs.artifactsDir, driftFileName(context.modelName));
  const clients = createAwsClients({ region: context.region });
  try {
    const result = await runDrift({
      clients,
      config: context.config,
      modelName: context.modelName,
      endpoint: context.endpoint,
      variant: context.variant,
      region: context.region,
      planFile: inputs.plan,
      outFile,
    });
    return {
      result,
      modelName: context.modelName,
      report: { drift: result.artifact ? { artifact: result.artifact, file: outFile } : null },
      notes: [],
    };
  } finally {
    destroyAwsClients(clients);
  }
}

async function runValidateStep(inputs: ActionInputs): Promise<CommandOutcome> {
  const context = modelContext(inputs);
  const planFile = inputs.plan ?? join(inputs.artifactsDir, planFileName(context.modelName));
  const outFile = inputs.out ?? join(inputs.artifactsDir, validateFileName(context.modelName));
  const clients = createAwsClients({ region: context.region });
  try {
    const result = await runValidate({
      clients,
      modelName: context.modelName,
      endpoint: context.endpoint,
      variant: context.variant,
      region: context.region,
      planFile,
      outFile,
    });
    return {
      result,
      modelName: context.modelName,
      report: { validate: result.artifact ? { artifact: result.artifact, file: outFile } : null },
      notes: [],
    };
  } finally {
    destroyAwsClients(clients);
  }
}

/** A cancelled measurement (SIGINT/SIGTERM from the runner): restored by the command; exit 1. */
function interrupted(e: InterruptedError, command: string): never {
  const restore = e.restore;
  const state = restore
    ? restore.errors.length === 0
      ? 'the endpoint was restored'
      : `restore FAILED (${restore.errors.join('; ')}); the post step retries from the thaw journal`
    : 'nothing was frozen';
  throw new Error(`${command} ${e.message}; ${state}`);
}

async function runQmaxStep(inputs: ActionInputs): Promise<CommandOutcome> {
  const context = modelContext(inputs);
  const live = inputs.transport !== 'http';
  const clients =
    live && !inputs.dryRun
      ? createAwsClients({
          region: context.region,
          maxConcurrency: inputs.maxConcurrency ?? LADDER_DEFAULTS.adaptive.maxConcurrency,
        })
      : undefined;
  try {
    const result = await runQmax(
      {
        modelName: context.modelName,
        model: context.model,
        configFile: context.configFile,
        endpoint: context.endpoint,
        variant: context.variant,
        region: context.region,
        transport: inputs.transport,
        sloMs: inputs.sloMs,
        ladder: inputs.ladder,
        rungs: inputs.rungs,
        maxConcurrency: inputs.maxConcurrency,
        resolution: inputs.resolution,
        holdS: inputs.holdS,
        measureS: inputs.measureS,
        settleS: inputs.settleS,
        runs: inputs.runs,
        cloudwatch: inputs.cloudwatch,
        minSamples: inputs.minSamples,
        freezeTimeoutS: inputs.freezeTimeoutS,
        dryRun: inputs.dryRun,
        out: inputs.out,
        outDir: inputs.artifactsDir,
        stateDir: stateDir(),
        commandLine: `scalegate qmax --model ${context.modelName} --endpoint ${context.endpoint} (GitHub Action)`,
      },
      { clients, progress: createProgressRenderer(process.stdout) },
    );
    const artifact =
      result.artifact && (result.artifact as { kind?: string }).kind === 'qmax'
        ? (result.artifact as QmaxArtifact)
        : null;
    return {
      result: result,
      modelName: context.modelName,
      report: {
        qmax: artifact ? { artifact, file: result.written[0] ?? null } : null,
        textReport: artifact ? null : result.report,
      },
      notes: [],
    };
  } catch (e) {
    if (e instanceof InterruptedError) interrupted(e, 'qmax');
    throw e;
  } finally {
    if (clients) destroyAwsClients(clients);
  }
}

async function runTtotalStep(inputs: ActionInputs): Promise<CommandOutcome> {
  const context = modelContext(inputs);
  const notes: string[] = [];
  let qmaxFile = inputs.qmax;
  if (qmaxFile === undefined) {
    const found = discoverMeasurements(inputs.artifactsDir, context.modelName, context.model);
    notes.push(...found.notes.filter((n) => !n.startsWith('no ttotal')));
    if (!found.qmax) {
      throw new UsageError(
        `no qmax artifact for ${context.modelName} in ${inputs.artifactsDir}: ttotal probes at rungs the qmax ladder measured. Run the qmax step first, or name its file with the qmax input.`,
      );
    }
    qmaxFile = found.qmax.file;
    notes.push(`qmax: ${qmaxFile} (discovered: newest for this fingerprint)`);
  }
  const clients = createAwsClients({ region: context.region });
  const controller = new AbortController();
  const guard = installSignalGuard(controller, (line) => process.stdout.write(`${line}\n`));
  try {
    const result = await runTtotal({
      clients,
      modelName: context.modelName,
      model: context.model,
      endpoint: context.endpoint,
      variant: context.variant,
      region: context.region,
      qmaxFile,
      probeConcurrency: inputs.probeConcurrency,
      maxWaitS: inputs.maxWaitS,
      settleS: inputs.settleS,
      pollS: inputs.pollS,
      allowConfigMismatch: inputs.allowConfigMismatch,
      outFile: inputs.out,
      outDir: inputs.artifactsDir,
      stateDir: stateDir(),
      signal: controller.signal,
      log: (line) => process.stdout.write(`${line}\n`),
      command: `scalegate ttotal --model ${context.modelName} --endpoint ${context.endpoint} (GitHub Action)`,
      version: VERSION,
    });
    return {
      result: result,
      modelName: context.modelName,
      report: {
        ttotal: result.artifact ? { artifact: result.artifact, file: result.written[0] ?? null } : null,
        qmax: { file: qmaxFile, artifact: readArtifact('qmax', qmaxFile) },
        textReport: result.artifact ? null : result.report,
      },
      notes,
    };
  } catch (e) {
    if (e instanceof InterruptedError) interrupted(e, 'ttotal');
    if (guard.received)
      throw new Error(`ttotal interrupted by ${guard.received}; the endpoint was restored (see the log)`);
    throw e;
  } finally {
    guard.remove();
    destroyAwsClients(clients);
  }
}

async function runThawStep(inputs: ActionInputs): Promise<CommandOutcome> {
  const context = modelContext(inputs);
  const clients = createAwsClients({ region: context.region });
  try {
    const result = await runThaw(
      { endpoint: context.endpoint, variant: context.variant, stateDir: stateDir() },
      awsFreezeAdapters(clients, context.endpoint, context.variant),
    );
    return { result, modelName: context.modelName, report: { textReport: result.report }, notes: [] };
  } finally {
    destroyAwsClients(clients);
  }
}

/**
 * The gate needs the digest of the image being deployed: for `image_uri` the pinned digest; for
 * `container_dir` the CDK asset hash, computed with aws-cdk-lib loaded at run time from the
 * node_modules above the bundle (the workspace's, when the composite action staged it there).
 * Without aws-cdk-lib there is no honest digest: refused, saying how to get one.
 */
function workspaceAssetHash(dir: string): string {
  try {
    return containerAssetHash(dir);
  } catch (e) {
    if (
      (e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' &&
      /aws-cdk-lib/.test((e as Error).message)
    ) {
      throw new UsageError(
        `gate: ${dir} is a container_dir model, whose image digest is its CDK asset hash, and aws-cdk-lib is not installed where the action runs. ` +
          'Install the repository (`npm ci`) before the step and use actions/gate (it runs from the workspace), or run `npx scalegate gate --model <name>`.',
      );
    }
    throw e;
  }
}

async function runGateStep(inputs: ActionInputs): Promise<CommandOutcome> {
  const context = loadModelContext({ model: inputs.model, config: inputs.config });
  const result = await runGate({
    modelName: context.modelName,
    model: context.model,
    configFile: context.configFile,
    planFile: inputs.plan ?? join(inputs.artifactsDir, planFileName(context.modelName)),
    region: inputs.region ?? context.model.region,
    containerAssetHash: workspaceAssetHash,
  });
  const report = result.artifact;
  return {
    result,
    modelName: context.modelName,
    report: {
      gate: report ? { passed: report.passed, checks: report.checks } : null,
      textReport: result.report,
    },
    notes: [],
  };
}
