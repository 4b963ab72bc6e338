/**
 * `scalegate plan`: read the measurements (qmax, ttotal, optionally goodput), derive the plan, write it.
 * The one AWS call a plan may make is the Price List API's (`runPlanPriced`, for the cost block);
 * `runPlan` itself never touches AWS.
 * `format` json / tfvars prints the deployable values for other infrastructure-as-code tools;
 * `fromFile` prints an existing plan that way, deriving and writing nothing.
 * Re-planning unchanged inputs keeps the existing plan's run id and time, so the file comes out
 * byte-identical and a committed validate or drill of that run id stays its proof.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { isLowerBound } from '../analysis/ttotal.js';
import { DEFAULT_PROMPTS, loadPrompts } from '../load/prompts.js';
import {
  artifactJson,
  artifactSchemas,
  DEFAULT_ARTIFACTS_DIR,
  LOCAL_ARTIFACTS_DIR,
  type ModelConfig,
  newRunId,
  opt,
  type PlanArtifact,
  planFileName,
  type QmaxArtifact,
  READ_LIMITS,
  readArtifact,
  readBoundedBytes,
  usage,
  writeArtifact,
} from '../model/index.js';
import type { PlanFormat, PriceSourceChoice } from '../options/plan.js';
import { audioPerRequest, fleetCostFinding, meanCharacters, planCost } from '../plan/cost.js';
import { derivePlan, type Load } from '../plan/derive.js';
import { configStatedLoad } from '../plan/gate-config.js';
import { attachInferenceComponent, measuredPathsOf } from '../plan/inference-component.js';
import {
  deployableValues,
  renderDeployableJson,
  renderDeployableTfvars,
} from '../report/deployable-values.js';
import { renderPlanReport } from '../report/plan-text.js';
import {
  type PriceLookup,
  type PriceResolution,
  resolveOfflinePrice,
  resolvePlanPrice,
} from './plan-price.js';
import { type CommandDeps, type CommandResult, resolveDeps } from './result.js';

export interface PlanInput {
  modelName: string;
  model: ModelConfig;
  /** Required unless `fromFile`. */
  qmaxFile?: string;
  /** The measured T_total. @default none: then `assumeTTotalS` must state one */
  ttotalFile?: string;
  /** An inference component's measured wake from zero (`ttotal --path zero`). @default none: the zero path is a bound */
  wakeFile?: string;
  /** Inference-component warm/cold paths measured (`ttotal --path warm|cold`). @default none: bounds */
  icPathFiles?: string[];
  /** A stated T_total in seconds (labelled stated, never measured). @default none */
  assumeTTotalS?: number;
  /** lambda_max from `scalegate goodput` (the open_loop_headroom finding). @default none: suppressed */
  goodputFile?: string;
  /** Peak load, requests/s (or `peakStreams`, never both). @default the model config's peak_rps */
  peakRps?: number;
  /** Peak load, concurrent streams. @default the model config's peak_streams */
  peakStreams?: number;
  /** Trough load, requests/s. @default the model config's trough_rps, else 0 */
  troughRps?: number;
  /** Trough load, concurrent streams. @default the model config's trough_streams, else 0 */
  troughStreams?: number;
  /** @default the model config's surge_ratio */
  surgeRatio?: number;
  /** @default the model config's slo_ms */
  sloMs?: number;
  /** @default the model config's min_instances_floor */
  minInstancesFloor?: number;
  /** A drill artifact: its measured policy lag replaces the computed or bounded one. @default none */
  drillFile?: string;
  /** A tune artifact: the plan deploys its chosen candidate (labelled chosen by simulation). @default none */
  tuneFile?: string;
  /** The rule the deployable values follow. @default 'surge-safe' */
  policyRule?: 'surge-safe' | 'seed';
  /** Plan from a qmax and a ttotal of different fingerprints (warns; recorded). @default false */
  allowConfigMismatch?: boolean;
  /** Plan on a ttotal whose T_total is only a lower bound (labelled LOWER BOUND everywhere). @default false */
  allowLowerBound?: boolean;
  /** @default `<artifactsDir>/plan-<model>.json` */
  outFile?: string;
  /** @default `artifacts` */
  artifactsDir?: string;
  /** Exit 1 on this verdict or worse. @default `stop` */
  failOn?: 'stop' | 'warn';
  /** @default the existing plan's when nothing it derives from changed, else a new one */
  runId?: string;
  /** What the report is: the text report, or the deployable values as json / tfvars. @default 'text' */
  format?: PlanFormat;
  /** Print this existing plan artifact in `format` instead of deriving one (nothing is written). @default none */
  fromFile?: string;
  /** Where the cost block's instance price comes from. @default 'auto' */
  priceSource?: PriceSourceChoice;
  /** The prompts the qmax sent, for characters per request when it recorded no audio. @default its recorded source */
  promptsFile?: string;
  /**
   * The price already resolved (`runPlanPriced` asks the Price List API). @default resolved here
   * without the API: stated, else the fallback table, noting that the API was not asked
   */
  price?: PriceResolution;
}

/** The deps of a plan that may ask the Price List API. */
export interface PlanDeps extends CommandDeps {
  /** The Price List API (src/aws/pricing.ts); absent: the plan prices without it. */
  priceLookup?: PriceLookup;
}

const sha256Of = (file: string): string =>
  createHash('sha256')
    .update(readBoundedBytes(file, { maxBytes: READ_LIMITS.artifact, label: 'the plan artifact' }))
    .digest('hex');

/** The report of `plan` in `format` (the deployable values need the model's endpoint and the file's hash). */
function planReport(
  input: PlanInput,
  plan: PlanArtifact,
  file: string,
  written: boolean,
  keptRunId = false,
): string {
  const format = input.format ?? 'text';
  if (format === 'text') return renderPlanReport(plan, written ? file : null, keptRunId);
  const values = deployableValues(plan, input.model, sha256Of(file));
  return format === 'json' ? renderDeployableJson(values) : renderDeployableTfvars(values);
}

const failingVerdict = (plan: PlanArtifact, failOn: PlanInput['failOn']): boolean =>
  plan.verdict === 'stop' || (failOn === 'warn' && plan.verdict === 'warn');

/** `--from`: an existing plan, printed; refuses any input that would derive one. */
function renderExisting(input: PlanInput & { fromFile: string }): CommandResult<PlanArtifact> {
  const deriving = (
    [
      ['qmax', input.qmaxFile],
      ['ttotal', input.ttotalFile],
      ['wake', input.wakeFile],
      ['assume-t-total', input.assumeTTotalS],
      ['drill', input.drillFile],
      ['goodput', input.goodputFile],
      ['tune', input.tuneFile],
      ['out', input.outFile],
    ] as const
  ).filter(([, v]) => v !== undefined);
  if (deriving.length > 0) {
    throw usage`${opt('from')} prints an existing plan and derives nothing: drop ${opt(deriving[0]?.[0] as string)} (or drop ${opt('from')} to derive a new plan).`;
  }
  const plan = readArtifact('plan', input.fromFile);
  if (plan.model_name !== input.modelName) {
    throw usage`${opt('from', input.fromFile)} is the plan of model ${plan.model_name}, not ${input.modelName}: choose the model with ${opt('model')}.`;
  }
  return {
    artifact: plan,
    report: planReport(input, plan, input.fromFile, false),
    exitCode: failingVerdict(plan, input.failOn) ? 1 : 0,
    written: [],
  };
}

/**
 * The run id and time of the plan already at `file` when `plan` equals it in everything but
 * those two and the tool version (same measurements, fingerprints, choices, derived values):
 * re-running plan on unchanged inputs then writes the same bytes. null: no such plan (none, not
 * readable, or something differs), and the new plan keeps its own.
 */
export function unchangedPlanIdentity(
  file: string,
  plan: PlanArtifact,
): { runId: string; createdAt: string } | null {
  if (!existsSync(file)) return null;
  let before: PlanArtifact;
  let bytes: string;
  try {
    bytes = readBoundedBytes(file, { maxBytes: READ_LIMITS.artifact, label: 'the plan artifact' }).toString(
      'utf8',
    );
    before = readArtifact('plan', file);
  } catch {
    return null;
  }
  const same = artifactSchemas.plan.safeParse({
    ...plan,
    run_id: before.run_id,
    created_at: before.created_at,
    provenance: { ...plan.provenance, tool: before.provenance.tool },
  });
  if (!same.success || artifactJson(same.data) !== bytes) return null;
  return { runId: before.run_id, createdAt: before.created_at };
}

function chooseLoad(input: PlanInput, which: 'peak' | 'trough'): Load | null {
  const rps = which === 'peak' ? input.peakRps : input.troughRps;
  const streams = which === 'peak' ? input.peakStreams : input.troughStreams;
  if (rps !== undefined && streams !== undefined) {
    throw usage`${opt(`${which}-rps`)} and ${opt(`${which}-streams`)} both given: state ${which} load in one unit.`;
  }
  if (rps !== undefined) return { unit: 'rps', value: rps };
  if (streams !== undefined) return { unit: 'streams', value: streams };
  return configStatedLoad(input.model, which);
}

/** A plan of local measurements (artifacts/local/, the local SageMaker's) stays beside them. */
function defaultPlanDir(qmaxFile: string): string {
  const within = relative(resolve(LOCAL_ARTIFACTS_DIR), resolve(qmaxFile));
  return within !== '' && !within.startsWith('..') && !within.startsWith('/')
    ? LOCAL_ARTIFACTS_DIR
    : DEFAULT_ARTIFACTS_DIR;
}

/**
 * Characters per request of the prompts the qmax sent (computed), for a qmax without audio: the
 * `--prompts` file, else its recorded source when that is the built-in set or a readable file;
 * null when unknown (a JSONL file's lines are request bodies, not texts).
 */
function promptCharacters(input: PlanInput, qmax: QmaxArtifact): number | null {
  if (audioPerRequest(qmax)) return null;
  const source = input.promptsFile ?? qmax.prompts?.source;
  if (source === undefined) return null;
  if (input.promptsFile === undefined && source === 'built-in') return meanCharacters(DEFAULT_PROMPTS);
  if (input.promptsFile === undefined && !existsSync(source)) return null;
  const texts = loadPrompts(source).texts;
  return texts.some((t) => t.trimStart().startsWith('{')) ? null : meanCharacters(texts);
}

/**
 * `runPlan` with the instance price resolved first: by `priceSource`, asking the Price List API
 * through `deps.priceLookup` (auto falls back to the table, saying why; api fails with exit 3).
 */
export async function runPlanPriced(
  input: PlanInput,
  deps: PlanDeps = {},
): Promise<CommandResult<PlanArtifact>> {
  if (input.fromFile !== undefined || input.price !== undefined || !deps.priceLookup) {
    return runPlan(input, deps);
  }
  const price = await resolvePlanPrice(
    { modelName: input.modelName, model: input.model, choice: input.priceSource },
    deps.priceLookup,
    deps.signal,
  );
  return runPlan({ ...input, price }, deps);
}

export function runPlan(input: PlanInput, deps: CommandDeps = {}): CommandResult<PlanArtifact> {
  const { clock, version } = resolveDeps(deps);
  const { model } = input;
  if (input.fromFile !== undefined) return renderExisting({ ...input, fromFile: input.fromFile });
  const qmaxFile = input.qmaxFile;
  if (qmaxFile === undefined) {
    throw usage`no qmax artifact: name one with ${opt('qmax')} (from \`scalegate qmax\`), or print an existing plan with ${opt('from')}.`;
  }
  if (input.ttotalFile !== undefined && input.assumeTTotalS !== undefined) {
    throw usage`${opt('ttotal')} and ${opt('assume-t-total')} both given: a plan uses the measured T_total or a stated one, not both.`;
  }
  if (input.ttotalFile === undefined && input.assumeTTotalS === undefined) {
    throw usage`no T_total: name a ttotal artifact with ${opt('ttotal')} (from \`scalegate ttotal\`) or state one in seconds with ${opt('assume-t-total')}.`;
  }
  const peak = chooseLoad(input, 'peak');
  if (peak === null) {
    throw usage`no peak load for model ${input.modelName}: set peak_rps (or peak_streams) in the config, or give ${opt('peak-rps')} or ${opt('peak-streams')}.`;
  }
  const trough = chooseLoad(input, 'trough') ?? { unit: peak.unit, value: 0 };

  const qmax = readArtifact('qmax', qmaxFile);
  const ttotal = input.ttotalFile === undefined ? null : readArtifact('ttotal', input.ttotalFile);
  if (ttotal && isLowerBound(ttotal) && input.allowLowerBound !== true) {
    throw usage`${input.ttotalFile}: T_total ${ttotal.t_total_s} s is only a LOWER BOUND (the probe never recovered; the clock stopped at in_service), so cooldowns and the surge probability planned on it could only be too low. Measure it to the end (\`scalegate ttotal --model ${input.modelName} --qmax ${qmaxFile}\`, a longer --max-wait-s if it was still recovering), or pass ${opt('allow-lower-bound')} to plan on it anyway (labelled LOWER BOUND; the gate refuses such a plan unless allowed there too).`;
  }
  const drill = input.drillFile === undefined ? null : readArtifact('drill', input.drillFile);
  const goodput = input.goodputFile === undefined ? null : readArtifact('goodput', input.goodputFile);
  // lambda_max is one instance's (one device's) to the plan: copies spread over instances are not.
  const spread = goodput?.inference_component;
  if (spread && spread.instances > 1) {
    throw usage`${input.goodputFile}: lambda_max was measured across ${spread.copies} copies on ${spread.instances} instances, and the plan takes one instance's: re-measure with \`scalegate goodput --model ${input.modelName} --copies ${spread.copies_per_instance}\` (or fewer copies).`;
  }
  if (input.tuneFile !== undefined && input.policyRule === 'seed') {
    throw usage`${opt('tune', input.tuneFile)} deploys the tune's chosen candidate and ${opt('policy-rule', 'seed')} the closed-loop rule: drop one of them.`;
  }
  const tune = input.tuneFile === undefined ? null : readArtifact('tune', input.tuneFile);
  const derived = derivePlan({
    modelName: input.modelName,
    qmax,
    qmaxFile,
    ttotal,
    ttotalFile: input.ttotalFile ?? null,
    tTotalStatedS: input.assumeTTotalS ?? null,
    drill,
    drillFile: input.drillFile ?? null,
    goodput,
    goodputFile: input.goodputFile ?? null,
    tune,
    tuneFile: input.tuneFile ?? null,
    choices: {
      sloMs: input.sloMs ?? model.slo_ms,
      surgeRatio: input.surgeRatio ?? model.surge_ratio,
      peak,
      trough,
      minInstancesFloor: input.minInstancesFloor ?? model.min_instances_floor,
      invocationCeilingS: model.invocation_ceiling_s,
      instanceHourlyUsd: model.instance_hourly_usd ?? null,
      instanceQuota: model.instance_quota ?? null,
      legacyRegion: model.region,
      policyRule: input.policyRule ?? 'surge-safe',
      maxOverflowProbability: model.max_overflow_probability,
    },
    allowConfigMismatch: input.allowConfigMismatch === true,
    runId: input.runId ?? newRunId(),
    createdAt: clock().toISOString(),
    tool: `scalegate ${version}`,
  });
  const price =
    input.price ?? resolveOfflinePrice({ modelName: input.modelName, model, choice: input.priceSource });
  const priced: PlanArtifact = {
    ...derived,
    // fleet_cost on the resolved price (ok or suppressed: it never moves the verdict).
    findings: derived.findings.map((f) =>
      f.name === 'fleet_cost'
        ? fleetCostFinding(
            price.price,
            price.note,
            derived.deployable.min_instances,
            derived.deployable.max_instances,
          )
        : f,
    ),
    cost: planCost({
      price: price.price,
      priceNote: price.note,
      qmax,
      promptCharacters: promptCharacters(input, qmax),
      xTargetRps: derived.derived.x_target_rps,
      lambdaSafeRps: derived.derived.lambda_safe_rps ?? null,
      references: model.reference_prices,
    }),
  };
  const wake = input.wakeFile === undefined ? null : readArtifact('ttotal', input.wakeFile);
  if (input.wakeFile !== undefined && (model.kind !== 'inference-component' || !wake?.inference_component)) {
    throw usage`${opt('wake', input.wakeFile)}: a wake from zero belongs to an inference-component model and comes from \`scalegate ttotal --path zero\`; ${model.kind !== 'inference-component' ? `${input.modelName} is a variant` : 'this ttotal artifact timed no inference component'}.`;
  }
  const plan =
    model.kind === 'inference-component' && model.inference_component
      ? attachInferenceComponent(priced, {
          ttotal,
          endpoint: model.endpoint,
          variant: model.variant,
          config: model.inference_component,
          measuredPaths: measuredPathsOf(
            wake,
            ...(input.icPathFiles ?? []).map((f) => readArtifact('ttotal', f)),
          ),
        })
      : priced;
  const outFile =
    input.outFile ?? join(input.artifactsDir ?? defaultPlanDir(qmaxFile), planFileName(input.modelName));
  const kept = input.runId === undefined ? unchangedPlanIdentity(outFile, plan) : null;
  if (kept) {
    plan.run_id = kept.runId;
    plan.created_at = kept.createdAt;
  }
  writeArtifact('plan', outFile, plan);
  return {
    artifact: plan,
    report: planReport(input, plan, outFile, true, kept !== null),
    exitCode: failingVerdict(plan, input.failOn) ? 1 : 0,
    written: [outFile],
  };
}
