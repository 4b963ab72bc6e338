/**
 * Which copies of an inference component share their instance's emulated device.
 *
 * The rule follows the CreateInferenceComponent API's ComputeResourceRequirements
 * (InferenceComponentComputeResourceRequirements): `NumberOfAcceleratorDevicesRequired` is the
 * number of accelerators allocated to a copy (minimum 1 when given), so
 *
 * - a copy that reserves accelerators (>= 1) gets devices of its own: it is its own container
 *   process with its own emulated device (placement counts the accelerators, INSTANCE_CAPACITY);
 * - copies of one component on one instance with accelerators that reserve none share the
 *   instance's device: one container process (one emulated device, one set of lanes and one
 *   queue) serves them all. The first copy starts it; a later copy replays its own start-up
 *   (the container's DEVICE_STARTUP ready time, scaled), then routes to it; routing and the
 *   per-copy metrics still count each copy's outstanding requests; the process stops with its
 *   last copy;
 * - on an instance without accelerators a copy runs on the CPU cores it reserves: its own process.
 *
 * Limits: copies of different components on one instance do not share (each component's copies
 * get their own process, hence their own emulated device); the shared process emulates one device
 * even on an instance with several accelerators.
 */
import type { ProcessShare } from './fleet.js';

/** Whether copies with `accelerators` reserved share the device of an instance offering `instanceAccelerators`. */
export function sharesInstanceDevice(accelerators: number, instanceAccelerators: number): boolean {
  return accelerators === 0 && instanceAccelerators > 0;
}

/**
 * The start-up a copy joining a running process replays (ms): the container's own start-up to
 * ready (DEVICE_STARTUP `ready_s` times DEVICE_TIME_SCALE), 0 when the model has none.
 */
export function copyStartupReplayMs(environment: Record<string, string>): number {
  const raw = environment.DEVICE_STARTUP?.trim();
  if (!raw) return 0;
  try {
    const readyS = Number((JSON.parse(raw) as { ready_s?: unknown }).ready_s);
    const scale = Number(environment.DEVICE_TIME_SCALE ?? '1');
    return Number.isFinite(readyS) && Number.isFinite(scale) && readyS > 0 && scale > 0
      ? Math.round(readyS * scale * 1000)
      : 0;
  } catch {
    // The container refuses a malformed DEVICE_STARTUP itself: the copy fails to start there.
    return 0;
  }
}

/** The share of a copy placed on `hostId`, or undefined when it gets a device of its own. */
export function copyShare(input: {
  hostId: string;
  /** Changes with every specification update: copies of different specifications never share a process. */
  specification: number;
  accelerators: number;
  instanceAccelerators: number;
  environment: Record<string, string>;
}): ProcessShare | undefined {
  if (!sharesInstanceDevice(input.accelerators, input.instanceAccelerators)) return undefined;
  return {
    key: `${input.hostId}#${input.specification}`,
    replayMs: copyStartupReplayMs(input.environment),
  };
}
