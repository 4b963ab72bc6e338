/**
 * What the simulator runs, from what scalegate already has: the policy a plan deploys, the device
 * a qmax ladder describes (src/analysis/device-profile.ts), the start-up a ttotal measured.
 */
import type { DeviceProfile, StartupProfile } from '../analysis/device-profile.js';
import { PREDEFINED_METRICS } from '../autoscaling/index.js';
import { type PlanArtifact, scheduledActionsOf, stepScaleOutOf, type TunedPolicy } from '../model/index.js';
import { SCALING_METRIC_SHAPES } from '../plan/policy-shape.js';
import type { FleetSimInput, SimDevice, SimPolicy, SimStartup } from './types.js';

/** The plan's deployable policy (target tracking, the scale-in step, and what a tuned plan adds). */
export function simPolicyFromPlan(plan: PlanArtifact): SimPolicy {
  const d = plan.deployable;
  if (d.scaling_target_value === null || d.scale_in_threshold === null)
    throw new RangeError(`the plan for ${plan.model_name} has no deployable scaling target to simulate`);
  return {
    metric: d.scaling_metric,
    targetValue: d.scaling_target_value,
    scaleInThreshold: d.scale_in_threshold,
    scaleOutCooldownS: d.scale_out_cooldown_s,
    scaleInCooldownS: d.scale_in_cooldown_s,
    minInstances: d.min_instances,
    maxInstances: d.max_instances,
    stepScaleOut: stepScaleOutOf(d),
    scheduledActions: scheduledActionsOf(d),
  };
}

/** A tune candidate, in the simulator's terms. */
export function simPolicyFromTuned(policy: TunedPolicy): SimPolicy {
  return {
    metric: policy.scaling_metric,
    targetValue: policy.target_value,
    scaleInThreshold: policy.scale_in_threshold,
    scaleOutCooldownS: policy.scale_out_cooldown_s,
    scaleInCooldownS: policy.scale_in_cooldown_s,
    minInstances: policy.min_instances,
    maxInstances: policy.max_instances,
    stepScaleOut: policy.step_scale_out,
    scheduledActions: policy.scheduled_actions,
  };
}

/** The device of a derived profile, at a time scale (the local SageMaker's), admitting `queueMaxDepth`. */
export function simDeviceFromProfile(
  profile: DeviceProfile,
  queueMaxDepth: number,
  options: { timeScale?: number; overheadMs?: number } = {},
): SimDevice {
  const scale = options.timeScale ?? 1;
  return {
    lanes: profile.lanes,
    serviceMeanMs: profile.service_mean_ms * scale,
    serviceSigma: profile.service_sigma,
    firstAudioFraction: profile.first_audio_fraction,
    queueMaxDepth,
    overheadMs: options.overheadMs ?? 0,
  };
}

/** A replayed start-up (its stages), at a time scale. */
export function simStartupFromProfile(startup: StartupProfile, timeScale = 1): SimStartup {
  return {
    provisionS: startup.provision_s * timeScale,
    readyS: startup.ready_s * timeScale,
    inServiceAfterReadyS: startup.in_service_after_ready_s * timeScale,
  };
}

/**
 * The publication delay per tracked metric that makes the simulated policy lag the plan's: its
 * policy lag (measured by a drill, or the bound) less what the scale-out alarm itself waits for
 * (its datapoints x period). ConcurrentRequestsPerModel with the 60 s bound: 60 - 3 x 10 = 30 s.
 */
export function metricDelaysFromPlan(plan: PlanArtifact): FleetSimInput['metricDelayS'] {
  const delays: NonNullable<FleetSimInput['metricDelayS']> = {};
  for (const c of plan.policy?.candidates ?? []) {
    const timing = PREDEFINED_METRICS[SCALING_METRIC_SHAPES[c.metric].predefinedMetricType].timing;
    delays[c.metric] = Math.max(0, c.policy_lag_s - timing.highDatapoints * timing.periodS);
  }
  return delays;
}
