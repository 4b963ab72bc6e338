/**
 * The deployable block of an inference-component model, from the plan derived for one copy. Pure.
 *
 * What is measured today is one copy: the qmax (and goodput) on an instance hosting one copy, and
 * ttotal's scale-out of a new instance. So the copy target comes from the plan's surge-safe
 * operating point per instance (= per copy), the cold path is the plan's own T_plan, the warm path
 * (a copy onto an instance with room) is bounded by the ttotal's container stages, and the wake
 * from zero is the wake alarm's period plus the cold path. `measuredPaths` is the seam for the
 * per-path T_total measurements that replace those bounds.
 */

import { CUSTOMIZED_METRIC_TIMING, SCALE_IN_FRACTION } from '../autoscaling/index.js';
import type {
  Finding,
  IcStepPolicy,
  InferenceComponentPlan,
  PlanArtifact,
  TtotalArtifact,
} from '../model/index.js';
import {
  componentNameOf,
  type InferenceComponentConfig,
  icFingerprintLabel,
  icFingerprintOf,
  inferenceComponentConfigSchema,
  sharesDevice,
} from '../model/inference-component.js';
import { planVerdict } from './findings.js';

export const COPY_TARGET_METRIC = 'SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution';
/** The wake alarm's period: one minute, Sum of NoCapacityInvocationFailures. */
export const WAKE_ALARM_PERIOD_S = 60;

export interface MeasuredPaths {
  /** T_total of a copy placed on an instance with room. */
  warmS?: number;
  /** T_total of a copy that needs a new instance. */
  coldS?: number;
  /** T_total of a wake from zero copies (alarm, instance, copy). */
  zeroS?: number;
}

/** The paths an IC ttotal artifact measured (`ttotal --path zero`: the wake); none from a variant's. */
export function measuredPathsOf(...ttotals: (TtotalArtifact | null)[]): MeasuredPaths {
  const out: MeasuredPaths = {};
  for (const t of ttotals) {
    const m = t?.inference_component;
    if (!t || !m) continue;
    if (m.path === 'zero' && m.wake_s !== null) out.zeroS = m.wake_s;
    if (m.path === 'warm') out.warmS = t.t_total_s;
    if (m.path === 'cold') out.coldS = t.t_total_s;
  }
  return out;
}

export interface InferenceComponentPlanRequest {
  plan: PlanArtifact;
  ttotal: TtotalArtifact | null;
  endpoint: string;
  variant: string;
  config: InferenceComponentConfig;
  measuredPaths?: MeasuredPaths;
}

export interface InferenceComponentPlanResult {
  block: InferenceComponentPlan;
  findings: Finding[];
}

const round1 = (x: number) => Math.round(x * 10) / 10;

/** Seconds from the first copy's container start to the end of T_total, from the ttotal timeline. */
export function containerStagesS(ttotal: TtotalArtifact | null): number | null {
  if (!ttotal) return null;
  const at = (stage: string) => {
    const entry = ttotal.timeline.find((t) => t.stage === stage);
    return entry ? Date.parse(entry.at) : null;
  };
  const start = at('container_started');
  const end = at(ttotal.t_total_end_stage ?? 'traffic_recovered') ?? at('in_service');
  const loadApplied = at('load_applied');
  if (start === null || end === null || end < start) return null;
  // Never more than T_total itself (a reconstructed stage can sit before load_applied).
  const span = (end - start) / 1000;
  return loadApplied !== null && start < loadApplied ? ttotal.t_total_s : Math.min(span, ttotal.t_total_s);
}

/** The copy target in ConcurrentRequestsPerCopy units: per container = per copy. */
function copyTarget(plan: PlanArtifact): { value: number; origin: 'computed'; provenance: string } {
  const candidate = plan.policy?.candidates.find((c) => c.metric === 'ConcurrentRequestsPerModel');
  if (candidate) {
    return {
      value: candidate.target_value,
      origin: 'computed',
      provenance: `the ConcurrentRequestsPerModel candidate's target at lambda_safe ${round1(candidate.lambda_safe_rps)} rps per copy (${candidate.target.origin} level, ${candidate.target.method})`,
    };
  }
  if (
    plan.deployable.scaling_metric === 'ConcurrentRequestsPerModel' &&
    plan.deployable.scaling_target_value
  ) {
    return {
      value: plan.deployable.scaling_target_value,
      origin: 'computed',
      provenance: "the plan's ConcurrentRequestsPerModel target (one copy per container)",
    };
  }
  const rate = plan.derived.lambda_safe_rps ?? plan.derived.x_target_rps ?? 0;
  return {
    value: Math.max(0.1, round1(rate * plan.measured.s_mean_s)),
    origin: 'computed',
    provenance: `Little's law: lambda_safe ${round1(rate)} rps x mean service time ${plan.measured.s_mean_s} s (no per-container level measured)`,
  };
}

/** How the plan's policy lag was obtained (older plans: bound when flagged so, else computed). */
const lagOrigin = (plan: PlanArtifact): 'measured' | 'computed' | 'bound' =>
  plan.measured.policy_lag_origin ?? (plan.measured.policy_lag_bounded ? 'bound' : 'computed');

/** The cold path's label: the weaker of its two parts (a bound lag or T_total makes it a bound). */
function coldOrigin(plan: PlanArtifact): 'measured' | 'computed' | 'bound' {
  const lag = lagOrigin(plan);
  if (plan.measured.t_total_origin !== 'measured' || lag === 'bound') return 'bound';
  return lag;
}

/** Minutes of low per-copy concurrency before the copy scale-in rule removes a copy: target tracking's own. */
export const COPY_SCALE_IN_MINUTES = CUSTOMIZED_METRIC_TIMING.lowDatapoints;

/**
 * The copy scale-in rule of a component that scales to zero (its target tracking does not scale
 * in): one copy fewer after COPY_SCALE_IN_MINUTES minutes whose busiest copy held fewer than 90 %
 * of the copy target, missing minutes (no copy, or before a wake) not breaching. Two steps on the
 * largest of those minutes: some traffic (a request in flight in at least one minute) removes a
 * copy; none leaves the copies to the idle rule, which alone takes the last one away after its
 * idle minutes.
 */
function copyScaleIn(prefix: string, copyTarget: number, cooldownS: number): IcStepPolicy {
  // Target tracking's scale-in threshold, 10 % below the target.
  const threshold = Math.round(copyTarget * SCALE_IN_FRACTION * 100) / 100;
  // Below the threshold the lower bound is exclusive: (0.5 - threshold, 0] holds maxima >= 1.
  const traffic = Math.round((0.5 - threshold) * 100) / 100;
  return {
    name: `${prefix}-copy-scale-in`,
    adjustment_type: 'ChangeInCapacity',
    adjustment: -1,
    cooldown_s: cooldownS,
    steps:
      traffic < 0
        ? [
            { lower: traffic, upper: 0, adjustment: -1 },
            { lower: null, upper: traffic, adjustment: 0 },
          ]
        : [{ lower: null, upper: 0, adjustment: 0 }],
    alarm: {
      name: `${prefix}-copy-scale-in`,
      metric: 'ConcurrentRequestsPerCopy',
      statistic: 'Maximum',
      period_s: 60,
      evaluation_periods: COPY_SCALE_IN_MINUTES,
      datapoints_to_alarm: COPY_SCALE_IN_MINUTES,
      threshold,
      comparison: 'LessThanThreshold',
      missing_data: 'notBreaching',
    },
  };
}

const ok = (name: string, detail: string): Finding => ({ name, verdict: 'ok', detail, fix: null });
const warn = (name: string, detail: string, fix: string): Finding => ({ name, verdict: 'warn', detail, fix });

export function deriveInferenceComponentPlan(
  request: InferenceComponentPlanRequest,
): InferenceComponentPlanResult {
  const { plan, config: ic, endpoint, variant } = request;
  const measuredPaths = request.measuredPaths ?? {};
  const name = componentNameOf(endpoint, ic);
  const cpi = ic.copies_per_instance;
  const lag = plan.measured.policy_lag_s;
  const findings: Finding[] = [];
  // Copies that reserve no accelerator share the instance's device (one queue): at full packing
  // each holds 1 / copies_per_instance of what one copy alone measured on that device.
  const share = sharesDevice(ic, plan.fingerprint.instance_type) ? cpi : 1;
  const assumptions: string[] = [
    share > 1
      ? `per-copy capacity: the device's, measured as one copy on one instance (the qmax), divided among the ${cpi} copies that share it (no accelerator reserved: one device, one queue); a copy alone on an instance is faster than planned`
      : 'per-copy capacity: measured as one copy on one instance (the qmax); each copy reserves its own compute, so packed copies are assumed not to slow each other',
    `policy lag of the copy metric: the plan's ${plan.measured.policy_lag_s} s (${plan.measured.policy_lag_origin ?? 'computed'}) of the per-instance high-resolution metric, assumed equal`,
  ];

  const deviceTarget = copyTarget(plan);
  const target =
    share > 1
      ? {
          ...deviceTarget,
          value: Math.max(0.1, round1(deviceTarget.value / share)),
          provenance: `${deviceTarget.provenance}, divided among ${share} copies sharing the device`,
        }
      : deviceTarget;
  // The plan's instance counts are counts of devices' worth of capacity: one per copy unless shared.
  const peak = plan.derived.peak_instances * share;
  const trough = plan.derived.trough_instances * share;
  const minCopies = ic.min_copies;
  const maxCopies = ic.max_copies;

  const cold =
    measuredPaths.coldS !== undefined
      ? {
          t_plan_s: round1(lag + measuredPaths.coldS),
          origin: 'measured' as const,
          provenance: `policy lag ${lag} s + measured cold-path T_total ${measuredPaths.coldS} s`,
        }
      : {
          t_plan_s: round1(plan.derived.t_plan_s),
          origin: coldOrigin(plan),
          provenance: `the plan's T_plan: policy lag ${lag} s (${lagOrigin(plan)}) + T_total ${plan.measured.t_total_s} s (${plan.measured.t_total_provenance ?? plan.measured.t_total_origin}) of a new instance`,
        };
  const stages = containerStagesS(request.ttotal);
  const warm =
    measuredPaths.warmS !== undefined
      ? {
          t_plan_s: round1(lag + measuredPaths.warmS),
          origin: 'measured' as const,
          provenance: `policy lag ${lag} s + measured warm-path T_total ${measuredPaths.warmS} s`,
        }
      : stages !== null
        ? {
            t_plan_s: round1(lag + stages),
            origin: 'bound' as const,
            provenance: `policy lag ${lag} s + the ttotal's container stages ${round1(stages)} s (container_started to the end of T_total): a bound, the warm path is not measured yet`,
          }
        : {
            t_plan_s: cold.t_plan_s,
            origin: 'bound' as const,
            provenance: "no container stages recorded: the cold path taken as the warm path's bound",
          };
  if (measuredPaths.warmS === undefined) {
    assumptions.push(`warm path (a copy onto an instance with room): ${warm.provenance}`);
  }

  let zero: InferenceComponentPlan['paths']['zero'] = null;
  let scaleToZero: InferenceComponentPlan['scale_to_zero'] = null;
  if (minCopies === 0) {
    const coldTotal = round1(cold.t_plan_s - lag);
    const wakePeriodS = ic.wake_alarm_period_s ?? WAKE_ALARM_PERIOD_S;
    const wakeS = measuredPaths.zeroS ?? round1(wakePeriodS + coldTotal);
    const wakeOrigin = measuredPaths.zeroS !== undefined ? ('measured' as const) : ('computed' as const);
    zero = {
      t_plan_s: wakeS,
      origin: wakeOrigin === 'measured' ? 'measured' : 'bound',
      provenance:
        measuredPaths.zeroS !== undefined
          ? `measured wake from zero ${measuredPaths.zeroS} s`
          : `the wake alarm's ${wakePeriodS} s period + the cold path's T_total ${coldTotal} s (not measured yet)`,
    };
    const prefix = `scalegate-${endpoint}-${name}`;
    assumptions.push(
      `a wake is not undone: the copy target tracking does not scale in (its low alarm's range would hold only the readings since the wake), the copy scale-in rule needs ${COPY_SCALE_IN_MINUTES} minutes of readings below 90 % of the copy target and treats the missing minutes before a wake as not breaching, and the idle rule's Invocations alarm is still in ALARM while the first copy starts (failed requests are not invocations), its ${ic.idle_scale_in_minutes}-minute cooldown keeping it from setting 0 copies again`,
    );
    const copyScaleInRule = copyScaleIn(prefix, target.value, plan.deployable.scale_in_cooldown_s);
    if (!copyScaleInRule.steps?.some((step) => step.adjustment < 0)) {
      assumptions.push(
        `the copy target ${target.value} is too small for the copy scale-in rule to tell traffic from idle (90 % of it is under one request in flight): copies are removed only by the idle rule, all at once`,
      );
    }
    const attemptsNeeded = Math.ceil(wakeS / ic.client_retry_backoff_s);
    const coversS = round1(ic.client_retry_attempts * ic.client_retry_backoff_s);
    scaleToZero = {
      wake: {
        name: `${prefix}-wake`,
        adjustment_type: 'ChangeInCapacity',
        adjustment: 1,
        cooldown_s: Math.ceil(cold.t_plan_s),
        // ONE request must wake it: >= 1 (AWS's example's `> 1` needs two in one minute).
        alarm: {
          name: `${prefix}-wake`,
          metric: 'NoCapacityInvocationFailures',
          statistic: 'Sum',
          period_s: wakePeriodS,
          evaluation_periods: 1,
          datapoints_to_alarm: 1,
          threshold: 1,
          comparison: 'GreaterThanOrEqualToThreshold',
          missing_data: 'notBreaching',
        },
      },
      idle_scale_in: {
        name: `${prefix}-idle`,
        adjustment_type: 'ExactCapacity',
        adjustment: 0,
        cooldown_s: 60 * ic.idle_scale_in_minutes,
        alarm: {
          name: `${prefix}-idle`,
          metric: 'Invocations',
          statistic: 'Sum',
          period_s: 60,
          evaluation_periods: ic.idle_scale_in_minutes,
          datapoints_to_alarm: ic.idle_scale_in_minutes,
          threshold: 0,
          comparison: 'LessThanOrEqualToThreshold',
          // No traffic publishes no datapoint: missing minutes are idle minutes.
          missing_data: 'breaching',
        },
      },
      copy_scale_in: copyScaleInRule,
      idle_minutes: ic.idle_scale_in_minutes,
      wake_s: wakeS,
      wake_origin: wakeOrigin,
      wake_tolerance_s: ic.wake_tolerance_s,
      retry: {
        attempts: ic.client_retry_attempts,
        backoff_s: ic.client_retry_backoff_s,
        covers_s: coversS,
        attempts_needed: attemptsNeeded,
      },
    };
    findings.push(
      wakeS > ic.wake_tolerance_s
        ? warn(
            'ic_wake_tolerance',
            `a wake from zero takes ${wakeS} s (${zero.origin}), more than the callers' wake_tolerance_s ${ic.wake_tolerance_s} s: the first request after ${ic.idle_scale_in_minutes} idle minutes waits that long`,
            'keep one copy warm (min_copies 1, instance_bounds.min 1), or raise wake_tolerance_s if the callers accept the wait',
          )
        : ok(
            'ic_wake_tolerance',
            `a wake from zero takes ${wakeS} s (${zero.origin}), within wake_tolerance_s ${ic.wake_tolerance_s} s`,
          ),
    );
    findings.push(
      coversS < wakeS
        ? warn(
            'ic_retry_budget',
            `clients retry ${ic.client_retry_attempts} x ${ic.client_retry_backoff_s} s = ${coversS} s (computed), less than the wake's ${wakeS} s: requests during a wake fail`,
            `set client_retry_attempts to at least ${attemptsNeeded} at ${ic.client_retry_backoff_s} s backoff (and configure the callers so)`,
          )
        : ok(
            'ic_retry_budget',
            `clients retry ${ic.client_retry_attempts} x ${ic.client_retry_backoff_s} s = ${coversS} s (computed), covering the wake's ${wakeS} s`,
          ),
    );
  }

  if (peak > maxCopies) {
    findings.push(
      warn(
        'ic_copy_capacity',
        `the peak needs ${peak} copies (computed), more than max_copies ${maxCopies}`,
        `raise max_copies to ${peak} (and instance_bounds.max to ${Math.ceil(peak / cpi)})`,
      ),
    );
  }
  findings.push(
    ok(
      'ic_per_copy_assumption',
      `copy target ${target.value} ConcurrentRequestsPerCopy (${target.origin}) from ${target.provenance}; assumed: ${assumptions[0]}`,
    ),
  );

  const block: InferenceComponentPlan = {
    component_name: name,
    endpoint,
    variant,
    packing: icFingerprintOf(ic),
    copies: { min: minCopies, max: maxCopies, peak, trough },
    instances: { min: Math.ceil(minCopies / cpi), max: Math.ceil(maxCopies / cpi) },
    copy_target: {
      predefined_metric: COPY_TARGET_METRIC,
      value: target.value,
      lambda_safe_per_copy_rps:
        plan.derived.lambda_safe_rps !== undefined && plan.derived.lambda_safe_rps !== null
          ? Math.round((plan.derived.lambda_safe_rps / share) * 1000) / 1000
          : null,
      origin: target.origin,
      provenance: target.provenance,
      scale_out_cooldown_s: plan.deployable.scale_out_cooldown_s,
      scale_in_cooldown_s: plan.deployable.scale_in_cooldown_s,
      disable_scale_in: minCopies === 0,
    },
    paths: { warm, cold, zero },
    scale_to_zero: scaleToZero,
    container_environment: { MAX_QUEUE_DEPTH: String(plan.deployable.queue_max_depth) },
    assumptions,
  };
  return { block, findings };
}

/**
 * The plan with its inference-component block: the block, its findings (the verdict counted
 * again) and the packing in the fingerprint (the measurement is of one copy; the plan is for this
 * packing and pairs with no other). What `scalegate plan` writes and the gate derives again.
 */
export function attachInferenceComponent(
  plan: PlanArtifact,
  request: Omit<InferenceComponentPlanRequest, 'plan'>,
): PlanArtifact {
  const { block, findings } = deriveInferenceComponentPlan({ ...request, plan });
  const all = [...plan.findings, ...findings];
  const { verdict, warnCount } = planVerdict(all);
  return {
    ...plan,
    fingerprint: { ...plan.fingerprint, inference_component: block.packing },
    findings: all,
    verdict,
    warn_count: warnCount,
    inference_component: block,
  };
}

/**
 * The config a block was derived from, as far as the derivation reads it (instance bounds: the
 * computed ones): for the gate, which derives the block again from the plan's own record.
 */
export function icConfigOfBlock(block: InferenceComponentPlan): InferenceComponentConfig {
  const z = block.scale_to_zero;
  return inferenceComponentConfigSchema.parse({
    component_name: block.component_name,
    copies_per_instance: block.packing.copies_per_instance,
    ...(block.packing.accelerators !== null ? { accelerators: block.packing.accelerators } : {}),
    ...(block.packing.cpu_cores !== null ? { cpu_cores: block.packing.cpu_cores } : {}),
    memory_mb: block.packing.memory_mb,
    min_copies: block.copies.min,
    max_copies: block.copies.max,
    instance_bounds: { min: block.instances.min, max: block.instances.max },
    ...(z
      ? {
          idle_scale_in_minutes: z.idle_minutes,
          wake_alarm_period_s: z.wake.alarm.period_s,
          wake_tolerance_s: z.wake_tolerance_s,
          client_retry_attempts: z.retry.attempts,
          client_retry_backoff_s: z.retry.backoff_s,
        }
      : {}),
  });
}

/** What the gate compares of a plan's component with the config's: name, packing, copy bounds, wake settings. */
export function icChoiceLabel(ic: InferenceComponentConfig | undefined, endpoint: string): string {
  if (!ic) return 'variant (no inference component)';
  const zero =
    ic.min_copies === 0
      ? `, idle ${ic.idle_scale_in_minutes} min, wake tolerance ${ic.wake_tolerance_s} s, retries ${ic.client_retry_attempts} x ${ic.client_retry_backoff_s} s`
      : '';
  return `${componentNameOf(endpoint, ic)}: ${icFingerprintLabel(icFingerprintOf(ic))}, copies ${ic.min_copies}..${ic.max_copies}${zero}`;
}
