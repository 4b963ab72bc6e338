/**
 * The emulated accelerator of each instance, as model environment for the reference container
 * (DEVICE_PROFILE, DEVICE_TIME_SCALE, DEVICE_STARTUP; see infra/container/src/device-config.ts).
 * Being model environment, it is what DescribeModel returns and therefore part of every
 * measurement's fingerprint: a measurement on an emulated device, or at another time scale,
 * never pairs with one of a real accelerator.
 */
import type { EmulatedDevice } from './contracts.js';

export function checkEmulatedDevice(device: EmulatedDevice): void {
  if (!(Number.isFinite(device.timeScale) && device.timeScale > 0))
    throw new RangeError(`device time scale must be a number > 0 (got ${device.timeScale})`);
  const p = device.profile;
  if (p && !(Number.isInteger(p.lanes) && p.lanes >= 1 && p.service_mean_ms > 0))
    throw new RangeError(
      `device profile needs lanes >= 1 and service_mean_ms > 0 (got ${JSON.stringify(p)})`,
    );
  const s = p?.streaming;
  if (
    s &&
    !(
      Number.isFinite(s.rtf) &&
      s.rtf > 0 &&
      s.chunk_audio_ms >= 10 &&
      (s.sharing === 'processor' || s.sharing === 'lanes')
    )
  )
    throw new RangeError(
      `streaming device needs rtf > 0, chunk_audio_ms >= 10 and sharing "processor" or "lanes" (got ${JSON.stringify(s)})`,
    );
}

const compact = (value: number): number => Number(value.toPrecision(6));

/** The model environment that makes the reference container emulate `device`. */
export function deviceEnvironment(device: EmulatedDevice): Record<string, string> {
  const env: Record<string, string> = {};
  const { profile, startup } = device;
  if (profile) {
    env.DEVICE_PROFILE = JSON.stringify({
      source: profile.source,
      lanes: profile.lanes,
      service_mean_ms: compact(profile.service_mean_ms),
      service_sigma: compact(profile.service_sigma),
      first_audio_fraction: compact(profile.first_audio_fraction),
      // Only when present: a profile without it keeps its environment, hence its fingerprint.
      ...(profile.streaming
        ? {
            streaming: {
              rtf: compact(profile.streaming.rtf),
              chunk_audio_ms: compact(profile.streaming.chunk_audio_ms),
              sharing: profile.streaming.sharing,
            },
          }
        : {}),
    });
  }
  if (startup) {
    env.DEVICE_STARTUP = JSON.stringify({
      framework_init_s: compact(startup.framework_init_s),
      weights_ready_s: compact(startup.weights_ready_s),
      warmup_done_s: compact(startup.warmup_done_s),
      ready_s: compact(startup.ready_s),
    });
  }
  if (profile || startup) env.DEVICE_TIME_SCALE = String(device.timeScale);
  return env;
}

/** Milliseconds of the emulated provisioning and of the wait from ready to InService, if replayed. */
export function startupDelaysMs(device: EmulatedDevice): { provisionMs: number; inServiceMs: number } | null {
  const { startup } = device;
  if (!startup) return null;
  return {
    provisionMs: Math.round(startup.provision_s * device.timeScale * 1000),
    inServiceMs: Math.round(startup.in_service_after_ready_s * device.timeScale * 1000),
  };
}

/** One line for progress output. */
export function describeEmulatedDevice(device: EmulatedDevice): string {
  const { profile, startup, timeScale } = device;
  let what = 'host CPU synthesis (instances share the cores)';
  if (profile?.streaming) {
    const { rtf, chunk_audio_ms, sharing } = profile.streaming;
    const scaled = rtf * timeScale;
    what =
      `emulated streaming device from ${profile.source}: ${profile.lanes} stream slot(s), real-time factor ` +
      `${scaled.toPrecision(3)} in ${chunk_audio_ms} ms chunks, ` +
      (sharing === 'processor'
        ? `throughput shared (slower than real time beyond ${Math.floor(1 / scaled)} active streams)`
        : 'independent lanes');
  } else if (profile) {
    const serviceMs = profile.service_mean_ms * timeScale;
    const rps = (profile.lanes * 1000) / serviceMs;
    what =
      `emulated device from ${profile.source}: ${profile.lanes} lane(s), service ${serviceMs.toFixed(2)} ms mean, ` +
      `${rps.toPrecision(3)} requests/s per instance`;
  }
  const scale = profile || startup ? `, time scale ${timeScale}` : '';
  const start = startup
    ? `; start-up from ${startup.source}: provisioning ${(startup.provision_s * timeScale).toFixed(1)} s, ` +
      `ready at ${(startup.ready_s * timeScale).toFixed(1)} s, in service ${(startup.in_service_after_ready_s * timeScale).toFixed(1)} s later`
    : '';
  return `${what}${scale}${start}`;
}
