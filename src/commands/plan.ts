/** `scalegate plan`: read the two measurements, derive the plan, write it. Never touches AWS. */
import { join } from 'node:path';
import {
  DEFAULT_ARTIFACTS_DIR,
  type ModelConfig,
  newRunId,
  type PlanArtifact,
  planFileName,
  readArtifact,
  UsageError,
  writeArtifact,
} from '../model/index.js';
import { derivePlan, type Load } from '../plan/derive.js';
import { renderPlanReport } from '../report/plan-text.js';
import type { CommandResult } from './result.js';

export interface PlanOverrides {
  peakRps?: number;
  peakStreams?: number;
  troughRps?: number;
  troughStreams?: number;
  surgeRatio?: number;
  sloMs?: number;
  minInstancesFloor?: number;
}

export interface PlanCommandInput {
  modelName: string;
  model: ModelConfig;
  qmaxFile: string;
  ttotalFile?: string;
  assumeTTotalS?: number;
  overrides: PlanOverrides;
  allowConfigMismatch: boolean;
  /** Where to write the plan; default artifacts/plan-<model>.json. */
  outFile?: string;
  failOnWarn: boolean;
  version: string;
  now?: () => Date;
  runId?: string;
}

function chooseLoad(
  flagRps: number | undefined,
  flagStreams: number | undefined,
  model: ModelConfig,
  which: 'peak' | 'trough',
): Load | null {
  if (flagRps !== undefined && flagStreams !== undefined) {
    throw new UsageError(
      `--${which}-rps and --${which}-streams both given: state ${which} load in one unit.`,
    );
  }
  if (flagRps !== undefined) return { unit: 'rps', value: flagRps };
  if (flagStreams !== undefined) return { unit: 'streams', value: flagStreams };
  const rps = model[`${which}_rps`];
  const streams = model[`${which}_streams`];
  if (rps !== undefined) return { unit: 'rps', value: rps };
  if (streams !== undefined) return { unit: 'streams', value: streams };
  return null;
}

export function runPlan(input: PlanCommandInput): CommandResult<PlanArtifact> {
  const { model, overrides } = input;
  if (input.ttotalFile !== undefined && input.assumeTTotalS !== undefined) {
    throw new UsageError(
      '--ttotal and --assume-t-total both given: a plan uses the measured T_total or a stated one, not both.',
    );
  }
  if (input.ttotalFile === undefined && input.assumeTTotalS === undefined) {
    throw new UsageError(
      'no T_total: pass --ttotal FILE (from `scalegate ttotal`) or state one with --assume-t-total SECONDS.',
    );
  }
  const peak = chooseLoad(overrides.peakRps, overrides.peakStreams, model, 'peak');
  if (peak === null) {
    throw new UsageError(
      `no peak load for model ${input.modelName}: set peak_rps (or peak_streams) in the config, or pass --peak-rps N / --peak-streams N.`,
    );
  }
  const trough = chooseLoad(overrides.troughRps, overrides.troughStreams, model, 'trough') ?? {
    unit: peak.unit,
    value: 0,
  };

  const qmax = readArtifact('qmax', input.qmaxFile);
  const ttotal = input.ttotalFile === undefined ? null : readArtifact('ttotal', input.ttotalFile);
  const now = (input.now ?? (() => new Date()))();
  const plan = derivePlan({
    modelName: input.modelName,
    qmax,
    qmaxFile: input.qmaxFile,
    ttotal,
    ttotalFile: input.ttotalFile ?? null,
    tTotalStatedS: input.assumeTTotalS ?? null,
    choices: {
      sloMs: overrides.sloMs ?? model.slo_ms,
      surgeRatio: overrides.surgeRatio ?? model.surge_ratio,
      peak,
      trough,
      minInstancesFloor: overrides.minInstancesFloor ?? model.min_instances_floor,
      invocationCeilingS: model.invocation_ceiling_s,
      instanceHourlyUsd: model.instance_hourly_usd ?? null,
      instanceQuota: model.instance_quota ?? null,
    },
    allowConfigMismatch: input.allowConfigMismatch,
    runId: input.runId ?? newRunId(),
    createdAt: now.toISOString(),
    tool: `scalegate ${input.version}`,
  });
  const outFile = input.outFile ?? join(DEFAULT_ARTIFACTS_DIR, planFileName(input.modelName));
  writeArtifact('plan', outFile, plan);
  const failing = plan.verdict === 'stop' || (input.failOnWarn && plan.verdict === 'warn');
  return {
    artifact: plan,
    report: renderPlanReport(plan, outFile),
    exitCode: failing ? 1 : 0,
    written: [outFile],
  };
}
