/**
 * The seams between the parts of the local SageMaker: the fleet and metrics (endpoint side) and
 * Application Auto Scaling with CloudWatch alarms (policy side). Each side depends only on these
 * interfaces, so either can be tested alone.
 */

import type { MetricPoint } from '../autoscaling/alarm-evaluation.js';

/** One JSON-protocol service operation: `operation` is the X-Amz-Target suffix, `input` the parsed body. */
export type OperationHandler = (operation: string, input: Record<string, unknown>) => Promise<unknown>;

export interface MetricQuery {
  namespace: string;
  metricName: string;
  /** Exact dimension set, as CloudWatch matches it. */
  dimensions: Record<string, string>;
  /** 'Average' | 'Maximum' | 'Minimum' | 'Sum' | 'SampleCount' | 'pNN' | 'pNN.N' */
  stat: string;
  periodS: number;
  startMs: number;
  endMs: number;
}

/** Defined with the alarm rules it feeds (src/autoscaling). */
export type { MetricPoint };

export interface MetricReader {
  /** Datapoints in ascending time order; periods without data are absent (as in CloudWatch). */
  query(q: MetricQuery): MetricPoint[];
}

/**
 * What Application Auto Scaling scales: `sagemaker:variant:DesiredInstanceCount` (a variant's
 * instances) and `sagemaker:inference-component:DesiredCopyCount` (an inference component's copies).
 */
export interface CapacityTarget {
  /**
   * `resourceId` is `endpoint/<endpoint>/variant/<variant>` or `inference-component/<name>`;
   * undefined when no such resource exists. `status` is the endpoint's or the component's.
   */
  describe(resourceId: string): { desired: number; current: number; status: string } | undefined;
  /** Starts a capacity change and returns once it is accepted (instances come and go later, as on AWS). */
  setDesired(resourceId: string, desired: number): Promise<void>;
}

export interface AlarmStateChange {
  alarmName: string;
  alarmArn: string;
  previous: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
  state: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
  reason: string;
  atMs: number;
}

/**
 * An emulated accelerator, as the reference container runs it (its DEVICE_PROFILE). The local
 * SageMaker knows it only as this plain object; deriving one from a measurement is the caller's job.
 */
export interface DeviceProfile {
  /** Where it came from (e.g. the measured artifact), shown in the fingerprint. */
  source: string;
  /** Requests served at once; 1 = serial. */
  lanes: number;
  /** Mean service time of one request on one lane, ms (before the time scale). */
  service_mean_ms: number;
  /** Shape of the log-normal service-time distribution (0 = constant). */
  service_sigma: number;
  /** Share of the service time after which the first audio byte leaves (1: with the last byte). */
  first_audio_fraction: number;
  /**
   * Optional: audio produced chunk-wise at the device's real-time factor, slowed by sharing
   * (infra/container/src/streaming.ts). Absent: the service-time model above, unchanged.
   */
  streaming?: StreamingDevice;
}

/** A device whose chunk cadence comes from its real-time factor and the streams sharing it. */
export interface StreamingDevice {
  /** Device seconds per audio second for one stream alone. */
  rtf: number;
  /** Audio per chunk, ms. */
  chunk_audio_ms: number;
  /** 'processor': k active streams each run k times slower; 'lanes': no slowdown. */
  sharing: 'processor' | 'lanes';
}

/** A measured instance start-up, replayed (times the time scale) for every instance launched. */
export interface StartupProfile {
  source: string;
  /** From the capacity request to the container process starting (provisioning, image pull). */
  provision_s: number;
  /** Earliest elapsed_s (since process start) of each container stage marker. */
  framework_init_s: number;
  weights_ready_s: number;
  warmup_done_s: number;
  ready_s: number;
  /** From the container's ready marker to the instance taking traffic (health checks, registration). */
  in_service_after_ready_s: number;
}

/** What each instance emulates. `profile` null: requests are synthesised on the host CPU. */
export interface EmulatedDevice {
  profile: DeviceProfile | null;
  /** Multiplies every device and start-up time (> 0). */
  timeScale: number;
  startup: StartupProfile | null;
}
