/**
 * `--device <qmax artifact|device profile|cpu>`, `--time-scale F`, `--startup <ttotal artifact>` (local up,
 * rehearse): read the measured artifacts and derive what each emulated instance runs
 * (src/analysis/device-profile.ts). Refusals are UsageErrors naming the flag and the file.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  type DeviceDerivation,
  type DeviceProfile,
  deriveDeviceProfile,
  deriveStartupProfile,
  type StartupProfile,
} from '../analysis/device-profile.js';
import { isUsageError, readArtifact, UsageError } from '../model/index.js';
import { READ_LIMITS, readBoundedFile } from '../model/read.js';

/** The local SageMaker's EmulatedDevice (same shape; src/local imports nothing of ours). */
export interface EmulatedDeviceChoice {
  profile: DeviceProfile | null;
  timeScale: number;
  startup: StartupProfile | null;
}

export interface DeviceOptions {
  /** `cpu`, a qmax artifact file, or a device profile file (a DEVICE_PROFILE JSON object). */
  device: string;
  /** Default 1. */
  timeScale?: number;
  /** A ttotal artifact file. */
  startup?: string;
}

export interface ResolvedDevice {
  device: EmulatedDeviceChoice;
  /** How the profile was derived (null for `cpu`). */
  derivation: DeviceDerivation | null;
}

/**
 * The committed real measurement (Kokoro-82M on ml.g5.xlarge) the rehearsal's device is derived
 * from by default, relative to the repository root.
 */
export const KOKORO_G5_QMAX = 'artifacts/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json';

/** `relative` in the working directory, else in the scalegate checkout this module runs from. */
export function locateBundled(relative: string): string {
  if (isAbsolute(relative) || existsSync(relative)) return relative;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return relative; // reading it then names the missing file
    dir = parent;
  }
}

/** Reads an artifact for a flag: any refusal names the flag before the file. */
function readFor<K extends 'qmax' | 'ttotal'>(kind: K, flag: string, file: string) {
  try {
    return readArtifact(kind, file);
  } catch (e) {
    if (isUsageError(e)) throw new UsageError(`${flag} ${e.message}`);
    throw e;
  }
}

/**
 * The committed device profiles (infra/container/profiles, documented in
 * docs/local-sagemaker.md): the measured Kokoro-82M device streaming serially, where first audio
 * bounds Q_max, and a processor-sharing device, where continuity does.
 */
export const DEVICE_PROFILES = {
  kokoroSerialStreaming: 'infra/container/profiles/kokoro-g5-serial-streaming.json',
  processorSharing16: 'infra/container/profiles/processor-sharing-16.json',
} as const;

const deviceProfileSchema = z
  .object({
    source: z.string().min(1),
    lanes: z.number().int().min(1).max(4096),
    service_mean_ms: z.number().positive().max(600_000),
    service_sigma: z.number().min(0).max(3),
    first_audio_fraction: z.number().gt(0).max(1),
    streaming: z
      .object({
        rtf: z.number().positive().max(100),
        chunk_audio_ms: z.number().min(10).max(60_000),
        sharing: z.enum(['processor', 'lanes']),
      })
      .strict()
      .optional(),
  })
  .strict();

/**
 * A device profile file (a JSON object with `lanes`, no ladder), or null when `file` is anything
 * else: the qmax reader then says what is wrong with it.
 */
export function readDeviceProfileFile(file: string): DeviceProfile | null {
  let json: unknown;
  try {
    json = JSON.parse(readBoundedFile(file, { maxBytes: READ_LIMITS.config, label: 'the device profile' }));
  } catch {
    return null;
  }
  if (typeof json !== 'object' || json === null || !('lanes' in json) || 'steps' in json) return null;
  const parsed = deviceProfileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'the profile';
    throw new UsageError(
      `--device ${file}: not a valid device profile (${where}: ${issue?.message ?? 'invalid'}). See docs/local-sagemaker.md, "Streaming devices".`,
    );
  }
  const { streaming, ...rest } = parsed.data;
  return streaming ? { ...rest, streaming } : rest;
}

export function resolveDevice(options: DeviceOptions): ResolvedDevice {
  const timeScale = options.timeScale ?? 1;
  if (!(Number.isFinite(timeScale) && timeScale > 0)) {
    throw new UsageError(
      `--time-scale needs a number > 0 (it multiplies every device time), got ${timeScale}.`,
    );
  }
  if (options.device === 'cpu' && options.timeScale !== undefined && !options.startup) {
    throw new UsageError(
      `--time-scale ${options.timeScale}: with --device cpu and no --startup there is no device time to scale. Pass --device <qmax artifact> or --startup <ttotal artifact>, or drop --time-scale.`,
    );
  }
  let profile: DeviceProfile | null = null;
  let derivation: DeviceDerivation | null = null;
  const file = options.device === 'cpu' ? null : readDeviceProfileFile(locateBundled(options.device));
  if (file) {
    profile = file;
  } else if (options.device !== 'cpu') {
    const qmax = readFor('qmax', '--device', options.device);
    derivation = deriveDeviceProfile(qmax, `--device ${options.device}`);
    profile = derivation.profile;
  }
  const startup = options.startup
    ? deriveStartupProfile(readFor('ttotal', '--startup', options.startup), `--startup ${options.startup}`)
    : null;
  return { device: { profile, timeScale, startup }, derivation };
}
