/**
 * The scalegate CDK app: per model of scalegate.config.json, three stacks applied in order
 * (foundation -> model cache -> endpoint), or, in calibration mode, the calibration endpoint on
 * the same foundation.
 *
 * Context (all optional, `-c key=value`):
 * - `scalegate:model=<name>`: synthesize only this model (default: every model; every model's
 *   gate must then pass, and all refusals are reported together).
 * - `scalegate:allowUnmeasured=<name>[,<name>...]`: those models deploy at fixed capacity with no
 *   scaling when their gate fails (a warning, for bootstrapping a first measurement).
 * - `scalegate:allowLowerBound=<name>[,<name>...]`: those models' gates pass a plan whose T_total
 *   is only a lower bound (the ttotal probe never recovered); the gate's check says so.
 * - `scalegate:calibration=<name>`: only that model's calibration-owned stack
 *   (`<endpoint>-calibration`, run by the CI-access stack's calibration execution role), in its
 *   calibration account/region, through the calibration bootstrap; no gate (the calibration
 *   endpoint produces the measurement), no IAM resource, no context lookup, and no production
 *   stack at all (a pull request's code never synthesizes one).
 * - `scalegate:candidate=<n>` (with `scalegate:calibration`): candidate n of the model's
 *   `candidates[]` instead (`scalegate compare`): its instance type and container environment over
 *   the model's, on `<endpoint>-cal-<n>` in the stack `scalegate-<model>-cal-<n>-calibration`;
 *   0 (the default) is the model's own. An index the config does not declare is refused.
 * - `scalegate:withPlan=<file>` (with `scalegate:calibration`): the calibration endpoint gets that
 *   plan's policy through the production constructs (autoscaling, observability, MAX_QUEUE_DEPTH,
 *   fleet), after the gate's checks of the plan; its measurements are read from
 *   `scalegate:artifactsDir` (default: the plan file's directory). Where the plan is validated
 *   and drilled before a release.
 * - `scalegate:ciAccess=<owner>/<repo>`: only the CI-access stack(s) (GitHub OIDC roles, the
 *   calibration execution policy and boundary); see ci-access-stack.ts for its other keys.
 * - `scalegate:config=<file>`: the config (default `<repo>/scalegate.config.json`).
 * - `scalegate:artifactsDir=<dir>`: where `plan-<model>.json` is read (default `<repo>/artifacts`).
 * - `scalegate:trustedRoot=<file>`: the Sigstore trust root the production gate verifies the
 *   proofs' attestations against (`gh attestation trusted-root > trusted_root.jsonl`); without it
 *   the gate's `attested` check refuses, unless `scalegate:offline=true` (a development synth,
 *   labelled in the synth output; a release never passes it).
 * Relative paths resolve against the repository root.
 *
 * Scaling is wanted for every model: the config has no "max 1 instance" setting, and a model
 * whose plan sizes it at one instance still gets its plan's scalable target (min = max = 1). So
 * a passing plan is always required, unless the model is in `scalegate:allowUnmeasured`.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App, Stack } from 'aws-cdk-lib';
import {
  CONFIG_FILE,
  candidateCalibrationStack,
  candidateModel,
  checkCandidateIndex,
  DEFAULT_ARTIFACTS_DIR,
  type ModelConfig,
  parseConfig,
  type ScalegateConfig,
  UsageError,
} from '../../src/model/index.js';
import { stackNames } from '../../src/plan/policy-shape.js';
import { calibrationEnv } from './calibration.js';
import { buildCiAccess, CI_ACCESS_CONTEXT } from './ci-access-stack.js';
import { EndpointStack } from './endpoint-stack.js';
import { FoundationStack } from './foundation-stack.js';
import { ModelCacheStack } from './model-cache-stack.js';
import { GateRefusedError } from './synth-gate.js';
import { WEIGHTS_SOURCES, type WeightsSource } from './weights.js';

export const CONTEXT = {
  model: 'scalegate:model',
  allowUnmeasured: 'scalegate:allowUnmeasured',
  allowLowerBound: 'scalegate:allowLowerBound',
  calibration: 'scalegate:calibration',
  candidate: 'scalegate:candidate',
  withPlan: 'scalegate:withPlan',
  config: 'scalegate:config',
  artifactsDir: 'scalegate:artifactsDir',
  trustedRoot: 'scalegate:trustedRoot',
  offline: 'scalegate:offline',
} as const;

/** The repository root: infra/.. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ScalegateAppOptions {
  /**
   * Repository root (container_dir, config and artifacts resolve against it).
   * @default REPO_ROOT, the checkout this module lives in
   */
  repoRoot?: string;
  /**
   * Account for every stack.
   * @default CDK_DEFAULT_ACCOUNT (the CLI's credentials), else none (environment-agnostic stacks)
   */
  account?: string;
  /**
   * Weights sources by model.
   * @default the sources of infra/lib/weights.ts
   */
  weights?: Readonly<Record<string, WeightsSource>>;
}

export interface ModelStacks {
  modelName: string;
  /** Production's stacks; null in calibration mode (never synthesized there). */
  foundation: FoundationStack | null;
  modelCache: ModelCacheStack | null;
  endpoint: EndpointStack | null;
  /** The calibration-owned stack; null in production mode. */
  calibration: EndpointStack | null;
  /** In deploy order. */
  ordered: Stack[];
}

const contextString = (app: App, key: string): string | undefined => {
  const value = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  return String(value);
};

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function readAppConfig(file: string): ScalegateConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(
      `${file}: cannot read the scalegate config (${(e as Error).message}); pass -c ${CONTEXT.config}=FILE.`,
    );
  }
  return parseConfig(text, file);
}

function checkModelNames(config: ScalegateConfig, names: string[], key: string, file: string): void {
  const declared = Object.keys(config.models);
  for (const name of names) {
    if (!config.models[name]) {
      throw new UsageError(
        `-c ${key}=${name}: no such model in ${file} (declared: ${declared.join(', ') || 'none'}).`,
      );
    }
  }
}

export function buildScalegateApp(app: App, options: ScalegateAppOptions = {}): ModelStacks[] {
  const repoRoot = options.repoRoot ?? REPO_ROOT;
  const configFile = resolve(repoRoot, contextString(app, CONTEXT.config) ?? CONFIG_FILE);
  const artifactsDirGiven = contextString(app, CONTEXT.artifactsDir);
  const artifactsDir = resolve(repoRoot, artifactsDirGiven ?? DEFAULT_ARTIFACTS_DIR);
  const config = readAppConfig(configFile);
  const only = contextString(app, CONTEXT.model);
  const calibrationModel = contextString(app, CONTEXT.calibration);
  const allowUnmeasured = list(contextString(app, CONTEXT.allowUnmeasured));
  const allowLowerBound = list(contextString(app, CONTEXT.allowLowerBound));
  const trustedRoot = contextString(app, CONTEXT.trustedRoot);
  const attestation = {
    trustedRootFile: trustedRoot ? resolve(repoRoot, trustedRoot) : undefined,
    offline: contextString(app, CONTEXT.offline) === 'true',
    config: config.attestation,
  };
  if (only) checkModelNames(config, [only], CONTEXT.model, configFile);
  if (calibrationModel) checkModelNames(config, [calibrationModel], CONTEXT.calibration, configFile);
  checkModelNames(config, allowUnmeasured, CONTEXT.allowUnmeasured, configFile);
  const withPlanFile = contextString(app, CONTEXT.withPlan);
  if (withPlanFile && !calibrationModel) {
    throw new UsageError(
      `-c ${CONTEXT.withPlan}=${withPlanFile} deploys a plan to a calibration endpoint: give -c ${CONTEXT.calibration}=<model> too (production always deploys artifacts/plan-<model>.json, gated).`,
    );
  }
  const withPlan = withPlanFile
    ? {
        planFile: resolve(repoRoot, withPlanFile),
        artifactsDir: artifactsDirGiven ? artifactsDir : dirname(resolve(repoRoot, withPlanFile)),
      }
    : undefined;
  checkModelNames(config, allowLowerBound, CONTEXT.allowLowerBound, configFile);
  const candidateGiven = contextString(app, CONTEXT.candidate);
  if (candidateGiven !== undefined && !calibrationModel) {
    throw new UsageError(
      `-c ${CONTEXT.candidate}=${candidateGiven} names a calibration endpoint: give -c ${CONTEXT.calibration}=<model> too.`,
    );
  }
  const candidate = candidateGiven === undefined ? 0 : Number(candidateGiven);
  if (calibrationModel) {
    if (candidateGiven !== undefined && !/^\d{1,2}$/.test(candidateGiven)) {
      throw new UsageError(`-c ${CONTEXT.candidate}=${candidateGiven}: a candidate index (0, 1, 2 ...).`);
    }
    checkCandidateIndex(calibrationModel, config.models[calibrationModel] as ModelConfig, candidate);
  }
  if (only && calibrationModel && only !== calibrationModel) {
    throw new UsageError(
      `-c ${CONTEXT.model}=${only} and -c ${CONTEXT.calibration}=${calibrationModel} name different models; give one.`,
    );
  }
  const weights = options.weights ?? WEIGHTS_SOURCES;
  const account = options.account ?? (process.env.CDK_DEFAULT_ACCOUNT || undefined);
  const ciAccess = contextString(app, CI_ACCESS_CONTEXT.repository);
  if (ciAccess) {
    buildCiAccess(app, config, ciAccess, { account, context: (key) => contextString(app, key) });
    return [];
  }

  const selected = calibrationModel ? [calibrationModel] : only ? [only] : Object.keys(config.models);
  const built: ModelStacks[] = [];
  const refusals: GateRefusedError[] = [];
  for (const modelName of selected) {
    const model = config.models[modelName] as ModelConfig;
    const names = stackNames(modelName);
    if (calibrationModel) {
      // Calibration-owned stacks only: nothing of production is synthesized, read or updated,
      // and no IAM role is created (the calibration execution role is the CI-access stack's).
      const env = calibrationEnv(model, account);
      const stackName = candidateCalibrationStack(modelName, candidate);
      const calibration = new EndpointStack(app, stackName, {
        env,
        modelName,
        // A candidate: its instance type and container environment over the model's.
        model: candidateModel(model, candidate),
        repoRoot,
        stackName,
        mode: {
          kind: 'calibration',
          ...(withPlan ? { withPlan } : {}),
          ...(candidate > 0 ? { candidate } : {}),
        },
        description: withPlan
          ? `scalegate ${modelName}: calibration endpoint with its plan's policy (validated and drilled here; calibration-owned)`
          : `scalegate ${modelName}: calibration endpoint (measured, never scaled; calibration-owned)`,
      });
      built.push({
        modelName,
        foundation: null,
        modelCache: null,
        endpoint: null,
        calibration,
        ordered: [calibration],
      });
      continue;
    }
    const env = { account, region: model.region };
    const foundation = new FoundationStack(app, names.foundation, {
      stackName: names.foundation,
      env,
      modelName,
      model,
      description: `scalegate ${modelName}: SageMaker execution role and weights bucket`,
    });
    const modelCache = new ModelCacheStack(app, names.modelCache, {
      stackName: names.modelCache,
      env,
      modelName,
      bucket: foundation.bucket,
      weights: weights[modelName] ?? null,
      description: `scalegate ${modelName}: one-time sync of the model weights into the weights bucket`,
    });
    modelCache.addStackDependency(foundation);
    const common = { env, modelName, model, repoRoot, executionRole: foundation.executionRole };
    try {
      const endpoint = new EndpointStack(app, names.endpoint, {
        ...common,
        stackName: names.endpoint,
        mode: {
          kind: 'production',
          artifactsDir,
          allowUnmeasured: allowUnmeasured.includes(modelName),
          allowLowerBound: allowLowerBound.includes(modelName),
          attestation,
        },
        description: `scalegate ${modelName}: SageMaker endpoint with its measured scaling policy`,
      });
      endpoint.addStackDependency(modelCache);
      built.push({
        modelName,
        foundation,
        modelCache,
        endpoint,
        calibration: null,
        ordered: [foundation, modelCache, endpoint],
      });
    } catch (e) {
      if (!(e instanceof GateRefusedError)) throw e;
      refusals.push(e);
    }
  }
  if (refusals.length === 1) throw refusals[0];
  if (refusals.length > 1) {
    throw new GateRefusedError(
      refusals.map((r) => r.message).join('\n\n'),
      refusals.map((r) => r.modelName).join(','),
      refusals[0]?.result as GateRefusedError['result'],
    );
  }
  return built;
}
