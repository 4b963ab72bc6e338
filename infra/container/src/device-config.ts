// Environment of the emulated accelerator (device mode, see device.ts). Unset DEVICE_PROFILE and
// DEVICE_STARTUP: the container synthesises every request on the host CPU, as it always has.
//
//   DEVICE_PROFILE      JSON {"source","lanes","service_mean_ms","service_sigma","first_audio_fraction"}
//                       and optionally "streaming": {"rtf","chunk_audio_ms","sharing"} (streaming.ts)
//   DEVICE_TIME_SCALE   multiplies every device time (service times and start-up pacing); default 1
//   DEVICE_STARTUP      JSON {"framework_init_s","weights_ready_s","warmup_done_s","ready_s"}: the
//                       earliest elapsed_s at which each stage marker may be printed
//   DEVICE_SEED         seed of the service-time draws (the local SageMaker gives each instance its own)
//
// These variables are part of the model environment, so a measurement's fingerprint records the
// device and its time scale: such a measurement never pairs with one of a real accelerator.

export interface DeviceProfile {
  /** Where the profile came from (a measured artifact), for people reading the fingerprint. */
  source: string;
  /** Requests served at once; 1 = serial. */
  lanes: number;
  /** Mean service time of one request on one lane, ms (before the time scale). */
  service_mean_ms: number;
  /** Shape of the log-normal service-time distribution (0 = constant). */
  service_sigma: number;
  /** Share of the service time after which the first audio byte leaves (1: with the last). */
  first_audio_fraction: number;
  /**
   * Optional: the audio is produced chunk-wise at the device's real-time factor (streaming.ts)
   * instead of in one drawn service time. Absent: the service-time model above, unchanged.
   */
  streaming?: StreamingProfile;
}

/** A device that produces audio at a real-time factor, slowed by the streams sharing it. */
export interface StreamingProfile {
  /** Device ms per ms of audio for one stream alone (0.1: ten times faster than real time). */
  rtf: number;
  /** Audio per chunk, ms: each chunk leaves when it has been produced. */
  chunk_audio_ms: number;
  /**
   * 'processor': the device's throughput is shared, k active streams each run k times slower
   * (a batching GPU at full utilisation); 'lanes': independent lanes, no slowdown.
   */
  sharing: 'processor' | 'lanes';
}

export const PACED_STAGES = ['framework_init', 'weights_ready', 'warmup_done', 'ready'] as const;
export type PacedStage = (typeof PACED_STAGES)[number];
export type StartupPacing = Record<`${PacedStage}_s`, number>;

export interface DeviceConfig {
  /** undefined: requests are synthesised on the host CPU (only the start-up is paced). */
  profile: DeviceProfile | undefined;
  startup: StartupPacing | undefined;
  timeScale: number;
  seed: number;
}

type Fail = (message: string) => Error;

function parseJsonObject(name: string, raw: string, fail: Fail): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw fail(`${name}: not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw fail(`${name}: expected a JSON object`);
  return value as Record<string, unknown>;
}

function numberIn(
  name: string,
  record: Record<string, unknown>,
  key: string,
  ok: (v: number) => boolean,
  what: string,
  fail: Fail,
): number {
  const value = record[key];
  if (typeof value !== 'number' || !Number.isFinite(value) || !ok(value))
    throw fail(`${name}: "${key}" must be ${what}, got ${JSON.stringify(value)}`);
  return value;
}

function parseStreaming(value: unknown, fail: Fail): StreamingProfile {
  const name = 'DEVICE_PROFILE.streaming';
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw fail(`${name}: expected a JSON object {"rtf","chunk_audio_ms","sharing"}`);
  const record = value as Record<string, unknown>;
  const sharing = record.sharing;
  if (sharing !== 'processor' && sharing !== 'lanes')
    throw fail(`${name}: "sharing" must be "processor" or "lanes", got ${JSON.stringify(sharing)}`);
  return {
    rtf: numberIn(name, record, 'rtf', (v) => v > 0 && v <= 100, 'a number in (0, 100]', fail),
    chunk_audio_ms: numberIn(
      name,
      record,
      'chunk_audio_ms',
      (v) => v >= 10 && v <= 60_000,
      'a number of ms in [10, 60000]',
      fail,
    ),
    sharing,
  };
}

function parseProfile(raw: string, fail: Fail): DeviceProfile {
  const name = 'DEVICE_PROFILE';
  const record = parseJsonObject(name, raw, fail);
  const source = record.source;
  if (typeof source !== 'string') throw fail(`${name}: "source" must be a string`);
  const streaming = record.streaming === undefined ? undefined : parseStreaming(record.streaming, fail);
  return {
    ...(streaming ? { streaming } : {}),
    source,
    lanes: numberIn(
      name,
      record,
      'lanes',
      (v) => Number.isInteger(v) && v >= 1 && v <= 4096,
      'an integer in 1..4096',
      fail,
    ),
    service_mean_ms: numberIn(
      name,
      record,
      'service_mean_ms',
      (v) => v > 0 && v <= 600_000,
      'a number of ms in (0, 600000]',
      fail,
    ),
    service_sigma: numberIn(
      name,
      record,
      'service_sigma',
      (v) => v >= 0 && v <= 3,
      'a number in [0, 3]',
      fail,
    ),
    first_audio_fraction: numberIn(
      name,
      record,
      'first_audio_fraction',
      (v) => v > 0 && v <= 1,
      'a number in (0, 1]',
      fail,
    ),
  };
}

function parseStartup(raw: string, fail: Fail): StartupPacing {
  const name = 'DEVICE_STARTUP';
  const record = parseJsonObject(name, raw, fail);
  const pacing = {} as StartupPacing;
  let previous = 0;
  for (const stage of PACED_STAGES) {
    const key = `${stage}_s` as const;
    const value = numberIn(
      name,
      record,
      key,
      (v) => v >= 0 && v <= 86_400,
      'a number of seconds in [0, 86400]',
      fail,
    );
    if (value < previous)
      throw fail(`${name}: "${key}" (${value}) is earlier than the stage before it (${previous})`);
    pacing[key] = value;
    previous = value;
  }
  return pacing;
}

/** The device settings of `env`; undefined when neither DEVICE_PROFILE nor DEVICE_STARTUP is set. */
export function readDeviceConfig(env: NodeJS.ProcessEnv, fail: Fail): DeviceConfig | undefined {
  const profileRaw = env.DEVICE_PROFILE?.trim() || undefined;
  const startupRaw = env.DEVICE_STARTUP?.trim() || undefined;
  const scaleRaw = env.DEVICE_TIME_SCALE?.trim() || undefined;
  const seedRaw = env.DEVICE_SEED?.trim() || undefined;
  if (profileRaw === undefined && startupRaw === undefined) {
    if (scaleRaw !== undefined)
      throw fail(`DEVICE_TIME_SCALE=${scaleRaw}: scales nothing without DEVICE_PROFILE or DEVICE_STARTUP`);
    return undefined;
  }
  const timeScale = scaleRaw === undefined ? 1 : Number(scaleRaw);
  if (!Number.isFinite(timeScale) || timeScale <= 0 || timeScale > 1000)
    throw fail(`DEVICE_TIME_SCALE=${scaleRaw}: expected a number in (0, 1000]`);
  const seed = seedRaw === undefined ? 1 : Number(seedRaw);
  if (!/^\d+$/.test(seedRaw ?? '1') || seed > 0xffffffff)
    throw fail(`DEVICE_SEED=${seedRaw}: expected an integer in 0..4294967295`);
  return {
    profile: profileRaw === undefined ? undefined : parseProfile(profileRaw, fail),
    startup: startupRaw === undefined ? undefined : parseStartup(startupRaw, fail),
    timeScale,
    seed,
  };
}
