/**
 * `scalegate compare`: which candidate instance type serves the model cheapest inside both SLOs.
 * Reads one model's candidate plans (one per instance type, each measured on its own calibration
 * endpoint), checks each type's Service Quotas against its plan's peak before anything is
 * deployed, ranks the candidates by $ per 1M characters at the surge-safe load among those that hold
 * (src/plan/compare.ts), writes compare-<model>.json and its frontier chart, and copies the chosen
 * plan, byte for byte, to the model's committed plan path.
 * Exit 0: a candidate is chosen; 1: none holds (or none can be chosen); 2: refused input.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AwsClients } from '../aws/clients.js';
import {
  type CompareArtifact,
  compareFileName,
  DEFAULT_ARTIFACTS_DIR,
  type Fingerprint,
  fingerprintDifferences,
  type ModelConfig,
  measuredEnvironment,
  newRunId,
  opt,
  type PlanArtifact,
  planFileName,
  READ_LIMITS,
  readArtifact,
  readBoundedFile,
  SCHEMA_VERSION,
  usage,
  writeArtifact,
  writeFileAtomic,
} from '../model/index.js';
import { type CandidatePlan, candidateFigures, rankCandidates } from '../plan/compare.js';
import { renderCompareSvg } from '../report/compare-svg.js';
import { compareFindings, renderCompareMarkdown, renderCompareReport } from '../report/compare-text.js';
import { quotaForPeak } from './quota-headroom.js';
import { type AwsCommandDeps, type CommandResult, resolveDeps } from './result.js';

export interface CompareInput {
  modelName: string;
  model: ModelConfig;
  /** Plan files, or directories holding them (every `plan-*.json` in it and its subdirectories). */
  planFiles: string[];
  /** @default `<artifactsDir>/compare-<model>.json` */
  outFile?: string;
  /** @default beside the artifact, `.svg` for `.json` */
  svgFile?: string;
  /** Also write the table and the choice as markdown here. @default none */
  markdownFile?: string;
  /** Where the chosen plan is copied. @default `<artifactsDir>/plan-<model>.json` (the committed plan) */
  planOut?: string;
  /** @default `artifacts` */
  artifactsDir?: string;
  /** @default a new one */
  runId?: string;
}

export type CompareClients = Pick<AwsClients, 'quotas' | 'sagemaker'>;
export type CompareDeps = AwsCommandDeps<CompareClients>;

/** The config's candidates: the model's own type first, then `candidates[]`, each with its environment. */
export function declaredCandidates(
  model: Pick<ModelConfig, 'instance_type' | 'container_env' | 'candidates'>,
): { instance_type: string; env: Record<string, string> }[] {
  return [
    { instance_type: model.instance_type, env: measuredEnvironment(model.container_env) },
    ...model.candidates.map((c) => ({
      instance_type: c.instance_type,
      env: measuredEnvironment({ ...model.container_env, ...c.container_env }),
    })),
  ];
}

/**
 * The declared candidate a fingerprint was measured as: same instance type, and every variable of
 * the candidate's environment present with its value (the endpoint may add its own); the most
 * specific match wins. null: none matches.
 */
export function candidateIndexOf(
  fp: Fingerprint,
  declared: ReturnType<typeof declaredCandidates>,
): number | null {
  let best: { index: number; keys: number } | null = null;
  declared.forEach((c, index) => {
    if (c.instance_type !== fp.instance_type) return;
    const entries = Object.entries(c.env);
    if (!entries.every(([k, v]) => fp.container_env[k] === v)) return;
    if (best === null || entries.length > best.keys) best = { index, keys: entries.length };
  });
  return (best as { index: number } | null)?.index ?? null;
}

/** Plan files named by the input: files as given, directories expanded (sorted). */
export function planFilesOf(entries: string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string, depth: number) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory() && depth < 3) walk(path, depth + 1);
      else if (stat.isFile() && /^plan-.+\.json$/.test(name)) files.push(path);
    }
  };
  for (const entry of entries) {
    let isDir = false;
    try {
      isDir = statSync(entry).isDirectory();
    } catch {
      // Not there: readArtifact names it.
    }
    if (isDir) walk(entry, 0);
    else files.push(entry);
  }
  return files;
}

function readPlans(input: CompareInput): { file: string; plan: PlanArtifact }[] {
  if (input.planFiles.length === 0) {
    throw usage`no candidate plans: name them with ${opt('plan')} (plan files or a directory of them, comma-separated).`;
  }
  const files = planFilesOf(input.planFiles);
  if (files.length === 0) {
    throw usage`${opt('plan', input.planFiles.join(','))}: no plan-*.json there. Name the candidates' plan files (from \`scalegate plan\`, one per calibration endpoint).`;
  }
  if (files.length > 11) {
    throw usage`${opt('plan')}: ${files.length} plans; compare takes at most 11 (the model's instance type and 10 candidates).`;
  }
  const plans = files.map((file) => ({ file, plan: readArtifact('plan', file) }));
  for (const { file, plan } of plans) {
    if (plan.model_name !== input.modelName) {
      throw usage`${opt('plan', file)} is a plan of model ${plan.model_name}, not ${input.modelName}: compare the candidate plans of one model (or pass ${opt('model', plan.model_name)}).`;
    }
    if (plan.cost == null) {
      throw usage`${opt('plan', file)} has no cost block: make it again with this scalegate's \`scalegate plan\` (it prices the instance type from the Price List API, the fallback table or instance_hourly_usd), then compare.`;
    }
  }
  plans.forEach((a, i) => {
    const twin = plans
      .slice(0, i)
      .find((b) => fingerprintDifferences(a.plan.fingerprint, b.plan.fingerprint).length === 0);
    if (twin) {
      throw usage`${opt('plan', a.file)} and ${opt('plan', twin.file)} have the same fingerprint (${a.plan.fingerprint.instance_type}): each candidate is measured once, on its own calibration endpoint. Drop one of them.`;
    }
  });
  return plans;
}

/** The model's own endpoints (production and calibration copies): their instances are the plan's to replace. */
const ownEndpoints = (model: Pick<ModelConfig, 'endpoint' | 'candidates'>): Set<string> =>
  new Set([
    model.endpoint,
    `${model.endpoint}-calibration`,
    ...model.candidates.map((_, i) => `${model.endpoint}-cal-${i + 1}`),
  ]);

export async function runCompare(
  input: CompareInput,
  deps: CompareDeps,
): Promise<CommandResult<CompareArtifact>> {
  const { clock, version } = resolveDeps(deps);
  const plans = readPlans(input);
  const declared = declaredCandidates(input.model);
  const own = ownEndpoints(input.model);
  const candidatePlans: CandidatePlan[] = [];
  for (const { file, plan } of plans) {
    const quota = await quotaForPeak(
      input.model,
      deps.clients,
      plan.fingerprint.instance_type,
      plan.derived.peak_instances,
      own,
    );
    candidatePlans.push({ file, plan, index: candidateIndexOf(plan.fingerprint, declared), quota });
  }
  const { candidates, chosen } = rankCandidates(
    candidatePlans
      .map(candidateFigures)
      .sort((a, b) => (a.index ?? 99) - (b.index ?? 99) || a.file.localeCompare(b.file)),
  );
  const artifactsDir = input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR;
  const planOut = input.planOut ?? join(artifactsDir, planFileName(input.modelName));
  const written: string[] = [];
  let chosenPlanFile: string | null = null;
  if (chosen) {
    if (resolve(chosen.file) !== resolve(planOut)) {
      // Byte for byte: the plan's attestation covers exactly these bytes.
      const text = readBoundedFile(chosen.file, {
        maxBytes: READ_LIMITS.artifact,
        label: 'the plan artifact',
      });
      writeFileAtomic(planOut, text);
      written.push(planOut);
    }
    chosenPlanFile = planOut;
  }
  const base: Omit<CompareArtifact, 'findings'> = {
    schema_version: SCHEMA_VERSION,
    kind: 'compare',
    model_name: input.modelName,
    run_id: input.runId ?? newRunId(),
    created_at: clock().toISOString(),
    candidates,
    chosen: chosen
      ? { label: chosen.label, file: chosen.file, fingerprint: chosen.fingerprint, run_id: chosen.run_id }
      : null,
    chosen_plan_file: chosenPlanFile,
    provenance: { origin: 'measured', tool: `scalegate ${version}`, note: null },
  };
  const artifact: CompareArtifact = { ...base, findings: compareFindings(base, input.model) };
  const outFile = input.outFile ?? join(artifactsDir, compareFileName(input.modelName));
  writeArtifact('compare', outFile, artifact);
  const svgFile =
    input.svgFile ??
    (outFile.endsWith('.json') ? `${outFile.slice(0, -'.json'.length)}.svg` : `${outFile}.svg`);
  writeFileAtomic(svgFile, renderCompareSvg(artifact));
  written.unshift(outFile, svgFile);
  if (input.markdownFile) {
    writeFileAtomic(input.markdownFile, renderCompareMarkdown(artifact));
    written.push(input.markdownFile);
  }
  return {
    artifact,
    report: renderCompareReport(artifact, { file: outFile, svgFile }),
    exitCode: chosen ? 0 : 1,
    written,
  };
}
