/**
 * What `plan` is asked: the measurements, the operator's choices, and the refusals that depend on
 * the request alone (each names the flag or file and the fix). Pure.
 */
import {
  type DrillArtifact,
  fingerprintDifferences,
  fingerprintSlug,
  type GoodputArtifact,
  type QmaxArtifact,
  type TtotalArtifact,
  type TuneArtifact,
  UsageError,
} from '../model/index.js';
import { remeasure } from './remeasure.js';

export interface Load {
  unit: 'rps' | 'streams';
  value: number;
}

export interface PlanChoices {
  sloMs: number;
  surgeRatio: number;
  peak: Load;
  trough: Load;
  minInstancesFloor: number;
  invocationCeilingS: number;
  instanceHourlyUsd: number | null;
  instanceQuota: number | null;
  /**
   * The region a legacy measurement (which records none) is taken to have been made in: the model
   * config's when the plan is made, recorded in the plan (the gate re-derives with the recorded
   * one, so a later change of the config's region is refused). Unused when the measurement
   * records its region.
   */
  legacyRegion: string | null;
  /**
   * `surge-safe` (default): deploy the operating point; `seed`: deploy the closed-loop rule
   * (1 - h) Q_max, for comparison (its verdict is stop when it overflows). @default 'surge-safe'
   */
  policyRule?: 'surge-safe' | 'seed';
  /** Overflow probability within T_plan the deployed policy may carry. @default 0.05 */
  maxOverflowProbability?: number;
}

export interface PlanRequest {
  modelName: string;
  qmax: QmaxArtifact;
  qmaxFile: string;
  ttotal: TtotalArtifact | null;
  ttotalFile: string | null;
  /** `--assume-t-total`: a stated T_total, labelled stated wherever it appears. */
  tTotalStatedS: number | null;
  /** `--drill`: a drill whose measured policy lag replaces the computed or bounded one. @default none */
  drill?: DrillArtifact | null;
  drillFile?: string | null;
  /** `--goodput`: lambda_max from the open-loop ladder (open_loop_headroom). @default none */
  goodput?: GoodputArtifact | null;
  goodputFile?: string | null;
  /** `--tune`: the tune artifact whose chosen candidate the plan deploys (src/plan/plan-tune.ts). @default none */
  tune?: TuneArtifact | null;
  tuneFile?: string | null;
  choices: PlanChoices;
  allowConfigMismatch: boolean;
  runId: string;
  createdAt: string;
  tool: string;
}

/** A stated T_total has no policy to read: the detection lag is the 60 s bound. */
export const POLICY_LAG_BOUND_S = 60;

/** Refusals that depend only on the request: each names the flag or file and the fix. */
export function checkPlanRequest(request: PlanRequest): string[] {
  const { choices, qmax, ttotal } = request;
  const warnings: string[] = [];
  if (choices.surgeRatio < 1 || choices.surgeRatio >= 1.5) {
    throw new UsageError(
      `surge ratio ${choices.surgeRatio} is outside [1, 1.5): the scale band (1-2h)*Q_max would vanish. Pass --surge-ratio between 1 and 1.5.`,
    );
  }
  if (choices.peak.value <= 0) {
    throw new UsageError(
      `no peak load: set peak_rps (or peak_streams) for model ${request.modelName} in the config, or pass --peak-rps N / --peak-streams N.`,
    );
  }
  if (choices.trough.unit !== choices.peak.unit) {
    throw new UsageError(
      `peak load is in ${choices.peak.unit} but trough load in ${choices.trough.unit}: state both in the same unit (--peak-rps/--trough-rps or --peak-streams/--trough-streams).`,
    );
  }
  if (choices.trough.value > choices.peak.value) {
    throw new UsageError(
      `trough load ${choices.trough.value} ${choices.trough.unit} is above peak load ${choices.peak.value}: fix --trough-${choices.trough.unit} or --peak-${choices.peak.unit}.`,
    );
  }
  if (choices.sloMs !== qmax.slo_ms) {
    throw new UsageError(
      `SLO ${choices.sloMs} ms differs from the ${qmax.slo_ms} ms the ladder in ${request.qmaxFile} was judged against: Q_max is defined by its SLO and cannot be re-used for another. Re-measure with \`scalegate qmax --slo-ms ${choices.sloMs}\`, or plan with --slo-ms ${qmax.slo_ms}.`,
    );
  }
  if (qmax.model_name !== request.modelName) {
    throw new UsageError(
      `${request.qmaxFile} was measured for model ${qmax.model_name}, not ${request.modelName}: pass --model ${qmax.model_name} or the right qmax artifact.`,
    );
  }
  if ((ttotal === null) === (request.tTotalStatedS === null)) {
    throw new UsageError(
      'give exactly one of --ttotal FILE (measured) and --assume-t-total SECONDS (stated).',
    );
  }
  if (ttotal) {
    if (ttotal.model_name !== request.modelName) {
      throw new UsageError(
        `${request.ttotalFile} was measured for model ${ttotal.model_name}, not ${request.modelName}: pass the right ttotal artifact.`,
      );
    }
    const differences = fingerprintDifferences(qmax.fingerprint, ttotal.fingerprint);
    if (differences.length > 0) {
      const what = differences.map((d) => `${d.field} ${d.left} vs ${d.right}`).join('; ');
      const message = `${request.qmaxFile} (${fingerprintSlug(qmax.fingerprint)}) and ${request.ttotalFile} (${fingerprintSlug(ttotal.fingerprint)}) were measured on different configurations (${what}): Q_max and T_total of different containers or instance types do not describe one endpoint.`;
      if (!request.allowConfigMismatch) {
        throw new UsageError(
          `${message} Measure both on the same configuration, or pass --allow-config-mismatch to plan anyway (recorded in the plan).`,
        );
      }
      warnings.push(`${message} Planned anyway with --allow-config-mismatch.`);
    }
  }
  if (request.drill) warnings.push(...checkDrill(request, request.drill));
  const goodput = request.goodput ?? null;
  if (goodput) {
    const file = request.goodputFile ?? 'the goodput artifact';
    if (goodput.model_name !== request.modelName) {
      throw new UsageError(
        `${file} was measured for model ${goodput.model_name}, not ${request.modelName}: pass the right goodput artifact with --goodput.`,
      );
    }
    if (!goodput.decided || goodput.lambda_max_rps === null) {
      throw new UsageError(
        `${file} is one shard of a goodput run (nothing decided yet): combine every shard with \`scalegate merge <files...>\` and plan with the merged file.`,
      );
    }
    if (goodput.slo_ms !== choices.sloMs) {
      throw new UsageError(
        `${file}: lambda_max was measured against a ${goodput.slo_ms} ms SLO, the plan uses ${choices.sloMs} ms: lambda_max is defined by its SLO. Re-measure with ${remeasure('goodput', request.modelName, ` --slo-ms ${choices.sloMs}`)}.`,
      );
    }
    const differences = fingerprintDifferences(qmax.fingerprint, goodput.fingerprint);
    if (differences.length > 0) {
      const what = differences.map((d) => `${d.field} ${d.left} vs ${d.right}`).join('; ');
      const message = `${request.qmaxFile} (${fingerprintSlug(qmax.fingerprint)}) and ${file} (${fingerprintSlug(goodput.fingerprint)}) were measured on different configurations (${what}): Q_max and lambda_max of different containers or instance types do not describe one endpoint.`;
      if (!request.allowConfigMismatch) {
        throw new UsageError(
          `${message} Measure both on the same configuration, or pass --allow-config-mismatch to plan anyway (recorded in the plan).`,
        );
      }
      warnings.push(`${message} Planned anyway with --allow-config-mismatch.`);
    }
  }
  return warnings;
}

/**
 * A drill whose policy lag may replace the plan's: this model's, measured on the qmax's
 * configuration (or allowed), with a lag measured from a busy endpoint (a scale-out whose alarm
 * saw its whole evaluation range: from an idle endpoint the alarm fires sooner than a surge from
 * the target would see).
 */
function checkDrill(request: PlanRequest, drill: DrillArtifact): string[] {
  const file = request.drillFile ?? 'the drill';
  if (drill.model_name !== request.modelName) {
    throw new UsageError(
      `${file} drilled model ${drill.model_name}, not ${request.modelName}: pass this model's drill artifact.`,
    );
  }
  const lag = drill.analysis.policy_lag;
  if (lag.seconds === null) {
    throw new UsageError(
      `${file} measured no policy lag (${lag.detail}): there is nothing to replace the plan's with. Drill again so that a scale-out happens (\`scalegate drill --model ${request.modelName} --steady-rps <below the target> --surge-ratio <k>\`), or plan without --drill.`,
    );
  }
  if (lag.evaluation === 'partial') {
    throw new UsageError(
      `${file}: its policy lag (${lag.seconds} s) comes from a scale-out that started from an idle endpoint, whose alarm fired on fewer datapoints than configured; a surge from the target waits for all of them. Drill with --steady-rps below the target so that the surge starts the scale-out from a busy endpoint, or plan without --drill.`,
    );
  }
  const differences = fingerprintDifferences(request.qmax.fingerprint, drill.fingerprint);
  if (differences.length > 0) {
    const what = differences.map((d) => `${d.field} ${d.left} vs ${d.right}`).join('; ');
    const message = `${request.qmaxFile} and ${file} were measured on different configurations (${what}).`;
    if (!request.allowConfigMismatch) {
      throw new UsageError(
        `${message} A policy lag measured on another endpoint configuration does not time this one: drill the endpoint the qmax measured, or pass --allow-config-mismatch (recorded in the plan).`,
      );
    }
    return [`${message} Planned anyway with --allow-config-mismatch.`];
  }
  return [];
}
