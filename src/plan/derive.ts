/**
 * From a qmax artifact, a ttotal artifact (or a stated T_total) and the operator's choices to the
 * plan artifact: values, findings, verdict. Pure and deterministic: the run id and the time are
 * inputs, and the surge probability is computed by uniformization (numerically exact, no random
 * numbers; how far it moves with its inputs is the plan's sensitivity band).
 */

import { deriveDeviceProfile } from '../analysis/device-profile.js';
import { isLowerBound, ladderP95, usableRungs } from '../analysis/ttotal.js';
import {
  type Deployable,
  type Fingerprint,
  fingerprintSlug,
  formatZodIssues,
  type GoodputArtifact,
  type PlanArtifact,
  planArtifactSchema,
  type QmaxArtifact,
  REGION_FROM_CONFIG,
  type RegionSource,
  SCHEMA_VERSION,
  UsageError,
} from '../model/index.js';
import { analyzeSurge, fluidOverflowTime, type ThroughputPoint } from '../stats/surge.js';
import { continuityFinding } from './continuity-finding.js';
import { evaluateFindings, planVerdict } from './findings.js';
import {
  instancesFor,
  naiveInstances,
  planningHorizonS,
  type RatioPoint,
  ratioNearest,
  round,
  scaleBand,
  scaleInCooldownS,
  scaleOutCooldownS,
  smallestSafeMinimum,
  throughputAtTarget,
  waitBudgetS,
} from './formulas.js';
import { concurrencyForThroughput, openLoopHeadroom } from './open-loop.js';
import {
  chooseCandidate,
  invocationsPolicyLagS,
  type MeasuredLevel,
  policyCandidate,
  policyReason,
} from './operating-point.js';
import { checkPlanRequest, type PlanRequest, POLICY_LAG_BOUND_S } from './plan-request.js';
import { checkTune, chosenByOf, tunedDeployable, tunedPolicyFinding } from './plan-tune.js';
import { remeasure } from './remeasure.js';
import {
  plannedDrillLag,
  plannedTtotal,
  qmaxIntervalDecided,
  qmaxProvenance,
  SENSITIVITY_T_LEVEL,
  surgeSensitivity,
  validatedHolds,
} from './uncertainty.js';

export {
  checkPlanRequest,
  type Load,
  type PlanChoices,
  type PlanRequest,
  POLICY_LAG_BOUND_S,
} from './plan-request.js';

function throughputCurve(qmax: QmaxArtifact): ThroughputPoint[] {
  const byConcurrency = new Map<number, number[]>();
  for (const step of qmax.steps) {
    if (!step.usable) continue;
    byConcurrency.set(step.concurrency, [...(byConcurrency.get(step.concurrency) ?? []), step.achieved_rps]);
  }
  return [...byConcurrency.entries()]
    .map(([concurrency, values]) => ({ concurrency, rps: values.reduce((a, b) => a + b, 0) / values.length }))
    .sort((a, b) => a.concurrency - b.concurrency);
}

function ratioPoints(qmax: QmaxArtifact): RatioPoint[] {
  const byConcurrency = new Map<number, number[]>();
  for (const step of qmax.steps) {
    if (!step.usable || step.cw_ratio === null) continue;
    byConcurrency.set(step.concurrency, [...(byConcurrency.get(step.concurrency) ?? []), step.cw_ratio]);
  }
  return [...byConcurrency.entries()].map(([concurrency, values]) => ({
    concurrency,
    ratio: values.reduce((a, b) => a + b, 0) / values.length,
  }));
}

const inputOf = (file: string, artifact: { run_id: string; fingerprint: Fingerprint }) => ({
  file,
  run_id: artifact.run_id,
  slug: fingerprintSlug(artifact.fingerprint),
  fingerprint: artifact.fingerprint,
});

/** The ladder's p95 TTFAB at any concurrency: linear between usable rungs, null beyond them. */
function p95Curve(qmax: QmaxArtifact): (concurrency: number) => number | null {
  const points = usableRungs(qmax).flatMap((c) => {
    const p95 = ladderP95(qmax, c);
    return p95 === null ? [] : [{ c, p95 }];
  });
  return (concurrency) => {
    const first = points[0];
    if (!first) return null;
    if (concurrency <= first.c) return first.p95;
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1] as { c: number; p95: number };
      const b = points[i] as { c: number; p95: number };
      if (concurrency <= b.c) return a.p95 + ((b.p95 - a.p95) * (concurrency - a.c)) / (b.c - a.c);
    }
    return null;
  };
}

/** goodput's per-rate CloudWatch levels (ConcurrentRequestsPerModel Maximum per 10 s), when joined. */
function measuredLevels(goodput: GoodputArtifact | null): MeasuredLevel[] {
  return (goodput?.rungs ?? []).flatMap(({ rate_rps, metric_level: m }) =>
    m ? [{ rate_rps, p10: m.p10, p50: m.p50, p90: m.p90 }] : [],
  );
}

/** The plan's region: the measurement's, else (legacy) the config's, labelled by where it came from. */
function regionOf(
  qmax: QmaxArtifact,
  legacyRegion: string | null,
): { region: string | null; source: RegionSource } {
  if (qmax.fingerprint.region !== null) return { region: qmax.fingerprint.region, source: 'measured' };
  if (legacyRegion !== null) return { region: legacyRegion, source: REGION_FROM_CONFIG };
  return { region: null, source: 'not recorded' };
}

/**
 * The plan from its inputs. Inputs that pass their schemas can still combine into a plan no
 * deployment could hold (say a peak load that needs more instances than any account has): that
 * is refused as a usage error naming the values, never written and never an exit 1.
 */
export function derivePlan(request: PlanRequest): PlanArtifact {
  const plan = derivePlanValues(request);
  const checked = planArtifactSchema.safeParse(plan);
  if (!checked.success) {
    throw new UsageError(
      `the plan from ${request.qmaxFile}${request.ttotalFile ? ` and ${request.ttotalFile}` : ''} and the chosen load (peak ${request.choices.peak.value} ${request.choices.peak.unit}, trough ${request.choices.trough.value} ${request.choices.trough.unit}) is outside what a deployment can hold:\n${formatZodIssues(checked.error)}\nCheck the peak/trough load (config or --peak-rps/--peak-streams) and the measurements.`,
    );
  }
  return checked.data;
}

function derivePlanValues(request: PlanRequest): PlanArtifact {
  const mismatchWarnings = checkPlanRequest(request);
  const { qmax, ttotal, choices } = request;

  const curve = throughputCurve(qmax);
  if (curve.length === 0) {
    throw new UsageError(
      `${request.qmaxFile}: no usable rung, so there is no throughput to size from. Re-measure with ${remeasure('qmax', request.modelName)}.`,
    );
  }
  // A T_total that ends at in_service is carried as a lower bound into every output (and the gate).
  const tTotalLowerBound = isLowerBound(ttotal);
  // Repeated scale-outs: their upper prediction bound; one: that observation, labelled so.
  const planned = ttotal && !tTotalLowerBound ? plannedTtotal(ttotal) : null;
  const tTotalS = planned ? planned.seconds : ttotal ? ttotal.t_total_s : (request.tTotalStatedS as number);
  const tTotalOrigin = ttotal
    ? tTotalLowerBound
      ? 'lower-bound'
      : (planned?.origin ?? 'measured')
    : 'stated';
  const drill = request.drill ?? null;
  const drillLag = drill ? plannedDrillLag(drill) : null;
  const drilledLagS = drillLag?.seconds ?? null;
  const policyLagS = drilledLagS ?? (ttotal ? ttotal.policy_lag_s : POLICY_LAG_BOUND_S);
  const policyLagBounded = drilledLagS !== null ? false : ttotal ? ttotal.policy_lag_bounded : true;
  // Measured by a drill; else read from the deployed alarms plus an assumed publication delay
  // (computed, not measured); else the 60 s bound.
  const policyLagOrigin = drilledLagS !== null ? 'measured' : policyLagBounded ? 'bound' : 'computed';
  // What the lag would have been without the drill: the drill's prediction to compare with.
  const replacedLagS = ttotal ? ttotal.policy_lag_s : POLICY_LAG_BOUND_S;
  const replacedLagOrigin = ttotal && !ttotal.policy_lag_bounded ? 'computed' : 'bound';
  const tPlanS = planningHorizonS(tTotalS, policyLagS);
  // `--tune`: the tune's chosen candidate is deployed instead of the operating point.
  const tune = request.tune ?? null;
  const tuneFile = request.tuneFile ?? 'the tune artifact';
  const tuned = tune
    ? checkTune({
        modelName: request.modelName,
        qmax,
        qmaxFile: request.qmaxFile,
        ttotal,
        ttotalFile: request.ttotalFile,
        tune,
        tuneFile,
      })
    : null;

  const band = scaleBand(qmax.q_max, choices.surgeRatio);
  const r = band.scaleInConcurrency > 0 ? band.scaleOutConcurrency / band.scaleInConcurrency : null;
  const minSafe = smallestSafeMinimum(band.scaleOutConcurrency, band.scaleInConcurrency);
  const wMaxS = waitBudgetS(choices.sloMs, qmax.s_p95_s);

  const ratio = ratioNearest(ratioPoints(qmax), band.scaleOutConcurrency);
  const xTargetRps = throughputAtTarget(curve, band.scaleOutConcurrency);
  const peakInstances = instancesFor(choices.peak, xTargetRps, band.scaleOutConcurrency);
  const troughInstances = instancesFor(choices.trough, xTargetRps, band.scaleOutConcurrency);
  const minInstances = Math.max(choices.minInstancesFloor, troughInstances);
  const maxInstances = Math.max(minInstances, peakInstances);
  const naivePeak =
    choices.peak.unit === 'rps' && band.scaleOutConcurrency > 0
      ? naiveInstances(choices.peak.value, qmax.s_mean_s, band.scaleOutConcurrency)
      : null;

  const surge =
    qmax.q_max > 0
      ? analyzeSurge({
          curve,
          targetConcurrency: band.scaleOutConcurrency,
          queueLimit: qmax.q_max,
          surgeRatio: choices.surgeRatio,
          horizonS: tPlanS,
          warnAbove: choices.maxOverflowProbability ?? 0.05,
        })
      : null;

  const goodput = request.goodput ?? null;
  const lambdaMax = goodput?.lambda_max_rps ?? null;
  const openLoopTarget =
    lambdaMax !== null && lambdaMax > 0 ? concurrencyForThroughput(curve, lambdaMax) : null;

  // The operating point: one candidate per tracked metric, the seed's closed-loop rule beside them.
  const rule = choices.policyRule ?? 'surge-safe';
  const maxOverflow = choices.maxOverflowProbability ?? 0.05;
  const device = deriveDeviceProfile(qmax, request.qmaxFile).profile;
  const candidateCommon = {
    curve,
    queueLimit: Math.max(1, qmax.q_max),
    surgeRatio: choices.surgeRatio,
    maxOverflowProbability: maxOverflow,
    lambdaMaxRps: lambdaMax !== null && lambdaMax > 0 ? lambdaMax : null,
    sloMs: choices.sloMs,
    p95AtConcurrency: p95Curve(qmax),
    tTotalS,
    scaleInRatio: band.scaleOutConcurrency > 0 ? band.scaleInConcurrency / band.scaleOutConcurrency : 0,
    device: {
      lanes: device.lanes,
      serviceMeanS: device.service_mean_ms / 1000,
      serviceSigma: device.service_sigma,
    },
    measuredLevels: measuredLevels(goodput),
    peak: choices.peak,
    trough: choices.trough,
    instanceHourlyUsd: choices.instanceHourlyUsd,
  };
  const candidates =
    qmax.q_max > 0
      ? [
          policyCandidate({
            ...candidateCommon,
            metric: 'ConcurrentRequestsPerModel',
            policyLagS,
            policyLagOrigin,
          }),
          policyCandidate({
            ...candidateCommon,
            metric: 'InvocationsPerInstance',
            policyLagS: invocationsPolicyLagS(),
            policyLagOrigin: 'computed',
          }),
        ]
      : [];
  const seedTarget = ratio ? round(band.scaleOutConcurrency * ratio.ratio, 3) : null;
  const seedScaleIn =
    ratio && band.scaleInConcurrency > 0 ? round(band.scaleInConcurrency * ratio.ratio, 3) : null;
  const seedRule = surge
    ? {
        target_value: seedTarget,
        scale_in_threshold: seedScaleIn,
        c_scale_max: round(band.scaleOutConcurrency, 6),
        rate_rps: round(surge.baseRate, 6),
        throughput_share: round(Math.min(1, surge.utilization), 6),
        surge_overflow_probability: round(surge.surge.probability, 4),
        baseline_overflow_probability: round(surge.baseline.probability, 4),
        peak_instances: peakInstances,
        cost_per_hour_usd:
          choices.instanceHourlyUsd === null ? null : round(peakInstances * choices.instanceHourlyUsd, 2),
        holds: surge.surge.probability <= maxOverflow && surge.baseline.probability <= maxOverflow,
      }
    : null;
  const chosenCandidate = candidates.length > 0 ? chooseCandidate(candidates) : null;
  const policy =
    chosenCandidate && seedRule && surge
      ? {
          chosen_metric: chosenCandidate.metric,
          reason: policyReason(
            chosenCandidate,
            seedRule,
            surge.saturationConcurrency,
            maxOverflow,
            device.lanes,
          ),
          max_overflow_probability: maxOverflow,
          candidates,
          seed_rule: seedRule,
          ...(tune ? { chosen_by: chosenByOf(tune, tuneFile) } : {}),
        }
      : null;
  // What is deployed: the chosen candidate (surge-safe), or the seed's rule when asked for.
  const deployed = rule === 'surge-safe' ? chosenCandidate : null;
  const deployedTPlanS = deployed ? deployed.t_plan_s : tPlanS;
  const deployedPeak = deployed ? deployed.peak_instances : peakInstances;
  const deployedTrough = deployed ? deployed.trough_instances : troughInstances;
  const deployedMin = Math.max(choices.minInstancesFloor, deployedTrough);
  const deployedMax = Math.max(deployedMin, deployedPeak);
  const fluidFromSafe = deployed
    ? fluidOverflowTime(
        curve,
        deployed.target.p50,
        Math.max(1, qmax.q_max),
        choices.surgeRatio * deployed.lambda_safe_rps,
        deployed.t_plan_s * 10,
      )
    : null;

  // The deployed rate's surge probability with each uncertain input at its unfavourable bound.
  const tPlanUpperS = deployed && planned?.upper99S != null ? planned.upper99S + deployed.policy_lag_s : null;
  const sensitivity =
    deployed && deployed.lambda_safe_rps > 0
      ? surgeSensitivity({
          curve,
          qmax,
          surgeRatio: choices.surgeRatio,
          rateRps: deployed.lambda_safe_rps,
          tPlanS: deployed.t_plan_s,
          tPlanUpperS,
          tPlanUpperNote:
            tPlanUpperS === null
              ? ttotal
                ? tTotalLowerBound
                  ? 'not available: T_total is only a lower bound'
                  : 'not available: single observation of T_total, no upper bound'
                : 'not available: T_total stated, no upper bound'
              : `T_total at its upper ${SENSITIVITY_T_LEVEL * 100} % prediction bound ${planned?.upper99S} s + policy lag ${deployed.policy_lag_s} s`,
        })
      : null;
  const holds = validatedHolds(qmax, goodput);
  const sizedRateRps = deployed ? deployed.lambda_safe_rps : xTargetRps;
  const sizedRateLabel = deployed
    ? `lambda_safe ${deployed.lambda_safe_rps.toFixed(2)} requests/s (the surge-safe rate the policy holds each instance at, computed)`
    : null;
  const openLoop = openLoopHeadroom({
    model: request.modelName,
    goodput,
    goodputFile: request.goodputFile ?? null,
    xTargetRps: sizedRateRps,
    sizedRateLabel,
    scaleOutConcurrency: band.scaleOutConcurrency,
    curve,
    cwRatio: ratio?.ratio ?? null,
    peakRps: choices.peak.unit === 'rps' ? choices.peak.value : null,
    peakInstances: deployedPeak,
  });

  const serviceTimeAlarmMs =
    qmax.ttfab_p95_at_c1_ms ?? qmax.steps.find((s) => s.concurrency === 1 && s.usable)?.ttfab_p95_ms ?? null;

  const findings = evaluateFindings({
    model: request.modelName,
    qmax,
    sloMs: choices.sloMs,
    serviceP95S: qmax.s_p95_s,
    waitBudgetS: wMaxS,
    invocationCeilingS: choices.invocationCeilingS,
    cwRatio: ratio?.ratio ?? null,
    cwRatioRung: ratio?.concurrency ?? null,
    scaleOutConcurrency: band.scaleOutConcurrency,
    scaleInConcurrency: band.scaleInConcurrency,
    surgeRatio: choices.surgeRatio,
    tPlanS: deployedTPlanS,
    surge: surge ? { ...surge, peakRps: choices.peak.unit === 'rps' ? choices.peak.value : null } : null,
    minInstances: tuned ? tuned.min_instances : deployedMin,
    maxInstances: tuned ? tuned.max_instances : deployedMax,
    minSafeInstances: minSafe,
    peakInstances: deployedPeak,
    naivePeakInstances: naivePeak,
    xTargetRps: sizedRateRps,
    sizedRateLabel,
    instanceHourlyUsd: choices.instanceHourlyUsd,
    tTotalOrigin: ttotal ? 'measured' : 'stated',
    tTotalProvenance: planned?.provenance,
    tTotalS,
    tTotalLowerBound,
    dominantStage: ttotal?.dominant_stage ?? null,
    instanceQuota: choices.instanceQuota,
    ttfabP95AtC1Ms: serviceTimeAlarmMs,
    openLoop,
    policy: {
      rule,
      maxOverflowProbability: maxOverflow,
      chosen: chosenCandidate,
      seed: seedRule,
      candidates,
    },
  });
  if (tune) findings.push(tunedPolicyFinding(tune, tuneFile, candidates, choices.surgeRatio, maxOverflow));
  const continuity = continuityFinding(qmax, request.modelName);
  if (continuity) findings.push(continuity);
  const { verdict, warnCount } = planVerdict(findings);
  const withTune = (d: Deployable): Deployable => (tuned ? tunedDeployable(d, tuned) : d);
  const region = regionOf(qmax, choices.legacyRegion);

  return {
    schema_version: SCHEMA_VERSION,
    kind: 'plan',
    // The continuity the measurements were decided on, as the qmax recorded it (absent in older ones).
    ...(qmax.continuity !== undefined ? { continuity: qmax.continuity } : {}),
    model_name: request.modelName,
    run_id: request.runId,
    created_at: request.createdAt,
    verdict,
    warn_count: warnCount,
    fingerprint: { ...qmax.fingerprint, region: region.region },
    region_source: region.source,
    inputs: {
      qmax: inputOf(request.qmaxFile, qmax),
      ttotal: ttotal && request.ttotalFile ? inputOf(request.ttotalFile, ttotal) : null,
      t_total_stated_s: request.tTotalStatedS,
      config_mismatch_allowed: request.allowConfigMismatch,
      mismatch_warnings: mismatchWarnings,
      ...(drill && request.drillFile ? { drill: inputOf(request.drillFile, drill) } : {}),
      ...(goodput && request.goodputFile ? { goodput: inputOf(request.goodputFile, goodput) } : {}),
      ...(tune ? { tune: inputOf(tuneFile, tune) } : {}),
    },
    chosen: {
      slo_ms: choices.sloMs,
      surge_ratio: choices.surgeRatio,
      peak: choices.peak,
      trough: choices.trough,
      min_instances_floor: choices.minInstancesFloor,
      invocation_ceiling_s: choices.invocationCeilingS,
      instance_hourly_usd: choices.instanceHourlyUsd,
      instance_quota: choices.instanceQuota,
      legacy_region: region.source === REGION_FROM_CONFIG ? region.region : null,
      policy_rule: rule,
      max_overflow_probability: maxOverflow,
    },
    measured: {
      q_max: qmax.q_max,
      q_max_bracketed: qmax.q_max_bracketed,
      s_mean_s: qmax.s_mean_s,
      s_p95_s: qmax.s_p95_s,
      ttfab_p95_at_c1_ms: serviceTimeAlarmMs,
      t_total_s: tTotalS,
      t_total_origin: tTotalOrigin,
      policy_lag_s: deployed ? deployed.policy_lag_s : policyLagS,
      policy_lag_bounded: deployed ? deployed.policy_lag_origin === 'bound' : policyLagBounded,
      policy_lag_origin: deployed ? deployed.policy_lag_origin : policyLagOrigin,
      cw_ratio: ratio ? round(ratio.ratio, 6) : null,
      cw_ratio_rung: ratio?.concurrency ?? null,
      lambda_max_rps: lambdaMax,
      lambda_max_bracketed: goodput ? goodput.lambda_max_bracketed : null,
      ...(planned
        ? { t_total_provenance: planned.provenance, t_total_observations_s: planned.observations }
        : {}),
      ...(drillLag && (!deployed || deployed.policy_lag_origin === 'measured')
        ? { policy_lag_provenance: drillLag.provenance }
        : {}),
      q_max_provenance: qmaxProvenance(qmax),
      q_max_interval_decided: qmaxIntervalDecided(qmax),
      validated_hold: holds.validated,
      validated_hold_detail: holds.detail,
      ...(qmax.vantage ? { vantage: qmax.vantage } : {}),
    },
    derived: {
      t_plan_s: round(deployedTPlanS, 6),
      h: round(band.h, 6),
      c_scale_max: round(band.scaleOutConcurrency, 6),
      c_scale_min: round(band.scaleInConcurrency, 6),
      r: r === null ? null : round(r, 6),
      min_safe_instances: minSafe,
      w_max_s: round(wMaxS, 3),
      x_target_rps: round(xTargetRps, 6),
      peak_instances: deployedPeak,
      trough_instances: deployedTrough,
      naive_peak_instances: naivePeak,
      // The deployed policy's surge figures (the drill is judged against them).
      surge_overflow_probability: deployed
        ? deployed.surge_overflow_probability
        : surge
          ? round(surge.surge.probability, 4)
          : null,
      surge_fluid_overflow_s: deployed
        ? fluidFromSafe === null
          ? null
          : round(fluidFromSafe, 3)
        : surge?.fluidOverflowS == null
          ? null
          : round(surge.fluidOverflowS, 3),
      surge_baseline_overflow_probability: deployed
        ? deployed.baseline_overflow_probability
        : surge
          ? round(surge.baseline.probability, 4)
          : null,
      surge_method: surge ? (surge.exact ? 'uniformization' : 'uniformization-lower-bound') : null,
      // A surge-safe fleet starts from its stationary state, not from one in-flight count.
      surge_start_in_flight: deployed ? null : surge ? surge.start : null,
      open_loop_headroom:
        lambdaMax !== null && sizedRateRps > 0 ? round(lambdaMax / sizedRateRps - 1, 6) : null,
      open_loop_concurrency_target: openLoopTarget === null ? null : round(openLoopTarget, 3),
      lambda_safe_rps: deployed ? deployed.lambda_safe_rps : null,
      x_target_origin: curve.some((p) => Math.abs(p.concurrency - band.scaleOutConcurrency) < 1e-9)
        ? 'measured'
        : 'interpolated',
      surge_sensitivity: sensitivity,
    },
    deployable: withTune({
      scaling_metric: deployed ? deployed.metric : 'ConcurrentRequestsPerModel',
      min_instances: rule === 'surge-safe' ? deployedMin : minInstances,
      max_instances: rule === 'surge-safe' ? deployedMax : maxInstances,
      scaling_target_value: deployed ? deployed.target_value : seedTarget,
      scale_in_threshold: deployed ? deployed.scale_in_threshold : seedScaleIn,
      queue_max_depth: Math.max(1, qmax.q_max),
      scale_out_cooldown_s: scaleOutCooldownS(deployedTPlanS),
      scale_in_cooldown_s: scaleInCooldownS(deployedTPlanS),
      slo_ms: choices.sloMs,
      service_time_alarm_ms: serviceTimeAlarmMs === null ? null : round(serviceTimeAlarmMs, 3),
    }),
    policy,
    findings,
    provenance: { origin: 'measured', tool: request.tool, note: null },
    ...(drill
      ? {
          drill_comparison: {
            drill_run_id: drill.run_id,
            drilled_plan_run_id: drill.plan_run_id,
            verdict: drill.verdict,
            surge_ratio: drill.settings.surge_ratio,
            policy_lag_predicted_s: replacedLagS,
            policy_lag_predicted_origin: replacedLagOrigin,
            policy_lag_observed_s: drilledLagS as number,
            t_plan_predicted_s: round(planningHorizonS(tTotalS, replacedLagS), 6),
            surge_overflow_predicted: drill.prediction.surge_overflow_probability,
            surge_overflow_observed: drill.analysis.observed.surge_overflowed_within_t_plan,
            overflows_observed:
              drill.analysis.observed.overflows.steady + drill.analysis.observed.overflows.surge,
            broken_windows: drill.broken_windows.length,
            slo_recovered_s: drill.analysis.slo_recovered_s,
            slo_held: drill.slo_held ?? null,
            as_predicted: drill.as_predicted ?? null,
          },
        }
      : {}),
  };
}
