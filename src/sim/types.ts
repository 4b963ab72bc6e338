/**
 * The fleet simulator's inputs and outputs (src/sim): a SageMaker variant of identical instances,
 * each the measured device, behind least-outstanding-requests routing, scaled by Application Auto
 * Scaling through CloudWatch alarms, in simulated time. Pure and seeded: the same input gives the
 * same result.
 */
import type { ScalingMetric, ScheduledAction, StepScaleOut } from '../model/index.js';

/** One instance's device (src/analysis/device-profile.ts derives it from a qmax ladder). */
export interface SimDevice {
  /** Requests served at once; 1 = serial. */
  lanes: number;
  /** Mean service time of one request on one lane, ms. */
  serviceMeanMs: number;
  /** Shape of the log-normal service time (0 = constant). */
  serviceSigma: number;
  /** Share of the service time after which the first audio byte leaves. */
  firstAudioFraction: number;
  /** Admission limit: requests in flight (queued + served) per instance; beyond it the container answers 503. */
  queueMaxDepth: number;
  /** Fixed time outside the device per request (client, network, front end), ms. @default 0 */
  overheadMs?: number;
}

/** From the capacity request to the instance taking traffic (a ttotal's stages, or stated). */
export interface SimStartup {
  /** Capacity request -> container process start. */
  provisionS: number;
  /** Container process start -> ready (the container's own stages). */
  readyS: number;
  /** Ready -> InService (health checks, registration). */
  inServiceAfterReadyS: number;
}

/** The policy a plan deploys (expectedPolicyShape), in the simulator's terms. */
export interface SimPolicy {
  metric: ScalingMetric;
  targetValue: number;
  scaleInThreshold: number;
  scaleOutCooldownS: number;
  scaleInCooldownS: number;
  minInstances: number;
  maxInstances: number;
  stepScaleOut: StepScaleOut | null;
  scheduledActions: readonly ScheduledAction[];
}

/** Arrivals: a piecewise-constant rate (Poisson arrivals drawn with the seed), or fixed times. */
export type SimArrivals =
  | {
      kind: 'rate';
      /** Ascending `t_s` starting at 0; each rate holds until the next row's t_s (the last until durationS). */
      rows: readonly { t_s: number; rps: number }[];
      durationS: number;
    }
  | { kind: 'timestamps' /** Ascending seconds from the start. */; times: Float64Array; durationS: number };

export interface FleetSimInput {
  device: SimDevice;
  startup: SimStartup;
  /** A policy, or the perfect fleet: capacity ceil(lambda(t) / ratePerInstance) at every moment, no start-up. */
  fleet: { kind: 'policy'; policy: SimPolicy } | { kind: 'perfect'; ratePerInstance: number };
  arrivals: SimArrivals;
  /** Instances in service at t = 0. @default the policy's minInstances (perfect: the first need) */
  initialInstances?: number;
  seed: number;
  /** @default 10 */
  windowS?: number;
  sloMs: number;
  /** A window holds when at most this share of its arrivals overflowed (and p95 <= SLO). @default 0.05 */
  maxOverflowProbability?: number;
  /**
   * Seconds between alarm evaluations. @default 10 (AWS evaluates a high-resolution alarm about
   * every 10 s, a standard one every minute); the local SageMaker evaluates every 1 s.
   */
  evaluationIntervalS?: number;
  /**
   * How long after a period ends its datapoint reaches the alarms, per tracked metric, s. AWS
   * publishes with a delay the local SageMaker does not have; a tune sets it so that the simulated
   * policy lag is the plan's (measured or bound). @default 0 for every metric
   */
  metricDelayS?: Partial<Record<ScalingMetric, number>>;
  /** Epoch ms of t = 0 (scheduled actions fire by it). @default 0 (1970-01-01T00:00Z: t_s is seconds since 00:00 UTC) */
  startEpochMs?: number;
  /**
   * ConcurrentRequestsPerModel 10 s maxima before t = 0 (`t_s` < 0, a slot's start): the history
   * the alarms find when the run starts (a drill's preflight requests, a fleet already serving).
   * @default none (the alarms start with no data, as freshly created ones do)
   */
  priorConcurrency?: readonly { t_s: number; value: number }[];
  /** Record the per-second timeline (desired, in service). @default true */
  timeline?: boolean;
}

export interface SimWindow {
  index: number;
  startS: number;
  offered: number;
  ok: number;
  overflow: number;
  /** Nearest-rank p95 of TTFAB over every arrival (misses at +infinity); null when that rank is a miss. */
  p95Ms: number | null;
  withinSloFraction: number | null;
  sloHeld: boolean;
}

export interface SimActivity {
  atS: number;
  from: number;
  to: number;
  direction: 'out' | 'in' | 'scheduled';
  cause: string;
}

export interface FleetSimResult {
  windows: SimWindow[];
  /** Share of full windows with sloHeld. */
  sloAttainment: number;
  /** Share of arrivals answered within the SLO. */
  requestAttainment: number;
  requests: number;
  overflows: number;
  /** Integral of instances billed (every launched instance from its capacity request until it is gone), hours. */
  instanceHours: number;
  peakInstances: number;
  /** Nearest-rank p95 TTFAB over every arrival (null: a miss). */
  p95TtfabMs: number | null;
  /** One entry per second: the desired count and the instances in service at that second's end. */
  timeline: { t: number; desired: number; inService: number }[];
  activities: SimActivity[];
  /** Alarm state changes, in order. */
  alarmTransitions: { atS: number; alarm: string; state: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA' }[];
}
