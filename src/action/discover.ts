/**
 * Finding a model's measurements in the artifacts directory when the workflow does not name the
 * files: by model, then by fingerprint. The choice is deterministic and never uses file times
 * (a checkout gives every file the same mtime): the newest measurement is the one whose own
 * `measured_at` is latest, ties broken by file name.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isLowerBound } from '../analysis/ttotal.js';
import {
  configFingerprint,
  type Fingerprint,
  fingerprintDifferences,
  fingerprintSlug,
  type GoodputArtifact,
  imageDigestOf,
  isUsageError,
  type ModelConfig,
  type QmaxArtifact,
  readArtifact,
  type TtotalArtifact,
} from '../model/index.js';

export interface Found<A> {
  file: string;
  artifact: A;
}

export interface DiscoveryResult {
  qmax: Found<QmaxArtifact> | null;
  ttotal: Found<TtotalArtifact> | null;
  /** What was skipped and why, for the log. */
  notes: string[];
}

function listFiles(dir: string, prefix: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.startsWith(prefix) && name.endsWith('.json'))
      .sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

type Measurement<K extends 'qmax' | 'ttotal' | 'goodput'> = K extends 'qmax'
  ? QmaxArtifact
  : K extends 'ttotal'
    ? TtotalArtifact
    : GoodputArtifact;

/** Every readable artifact of `kind` for `model` in `dir` (unreadable ones are noted, not fatal). */
export function listModelArtifacts<K extends 'qmax' | 'ttotal' | 'goodput'>(
  kind: K,
  dir: string,
  model: string,
  notes: string[],
): Found<Measurement<K>>[] {
  const found: Found<Measurement<K>>[] = [];
  for (const name of listFiles(dir, `${kind}-${model}-`)) {
    const file = join(dir, name);
    try {
      const artifact = readArtifact(kind, file) as Measurement<K>;
      // `qmax-kokoro-…` also matches model `kokoro`'s prefix: the artifact says whose it is.
      if (artifact.model_name !== model) continue;
      found.push({ file, artifact });
    } catch (e) {
      if (!isUsageError(e)) throw e;
      notes.push(`skipped ${file}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  return found;
}

/**
 * Does a measurement's fingerprint fit what the config deploys? Instance type and container
 * environment always; the image digest only when the config pins one (`image_uri`): a
 * `container_dir` image's digest is its CDK asset hash, which the gate computes at synth. The
 * region is the gate's business (a local rehearsal measures in region `local`).
 */
export function fitsConfig(fp: Fingerprint, model: ModelConfig): boolean {
  const digest = model.image_uri ? imageDigestOf(model.image_uri) : fp.image_digest;
  return fingerprintDifferences(fp, configFingerprint(model, digest, fp.region)).length === 0;
}

const time = (iso: string): number => {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : Number.NEGATIVE_INFINITY;
};

/** Newest first by the artifact's own time; equal times by file name (stable on every machine). */
export function newestFirst<A extends { measured_at: string }>(a: Found<A>, b: Found<A>): number {
  const dt = time(b.artifact.measured_at) - time(a.artifact.measured_at);
  if (dt !== 0) return dt;
  return a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}

/**
 * The ttotal a plan on `qmax` should use: of exactly its fingerprint, one measured from that very
 * qmax run first, then the newest. A lower-bound T_total (its probe never recovered) is skipped,
 * with a note, unless `allowLowerBound`: it never becomes a plan's input silently.
 */
export function chooseTtotal(
  dir: string,
  modelName: string,
  qmax: Found<QmaxArtifact>,
  notes: string[],
  allowLowerBound = false,
): Found<TtotalArtifact> | null {
  const ttotals = listModelArtifacts('ttotal', dir, modelName, notes).filter((t) => {
    if (fingerprintDifferences(t.artifact.fingerprint, qmax.artifact.fingerprint).length > 0) return false;
    if (!allowLowerBound && isLowerBound(t.artifact)) {
      notes.push(
        `skipped ${t.file}: its T_total ${t.artifact.t_total_s} s is only a LOWER BOUND (the probe never recovered); set allow-lower-bound to plan on it`,
      );
      return false;
    }
    return true;
  });
  ttotals.sort((a, b) => {
    const pa = a.artifact.qmax_run_id === qmax.artifact.run_id ? 0 : 1;
    const pb = b.artifact.qmax_run_id === qmax.artifact.run_id ? 0 : 1;
    return pa - pb || newestFirst(a, b);
  });
  return ttotals[0] ?? null;
}

/**
 * The qmax and ttotal a plan should use: the newest qmax whose fingerprint fits the config, and
 * its ttotal (chooseTtotal).
 */
export function discoverMeasurements(
  dir: string,
  modelName: string,
  model: ModelConfig,
  options: { allowLowerBound?: boolean } = {},
): DiscoveryResult {
  const notes: string[] = [];
  const qmaxes = listModelArtifacts('qmax', dir, modelName, notes);
  const fitting = qmaxes.filter((q) => fitsConfig(q.artifact.fingerprint, model)).sort(newestFirst);
  for (const q of qmaxes) {
    if (!fitting.includes(q)) {
      notes.push(
        `skipped ${q.file}: measured on ${fingerprintSlug(q.artifact.fingerprint)}, which is not what ${modelName} deploys (${model.instance_type})`,
      );
    }
  }
  const qmax = fitting[0] ?? null;
  if (!qmax) return { qmax: null, ttotal: null, notes };
  const ttotal = chooseTtotal(dir, modelName, qmax, notes, options.allowLowerBound === true);
  if (!ttotal) {
    notes.push(
      `no ttotal artifact in ${dir} has the fingerprint of ${qmax.file} (${fingerprintSlug(qmax.artifact.fingerprint)})${options.allowLowerBound ? '' : ' and a complete T_total'}`,
    );
  }
  return { qmax, ttotal, notes };
}

/**
 * The goodput artifact a plan should use beside `qmax`: the newest decided one (not a shard file)
 * of exactly the qmax's fingerprint and SLO, or null (the plan then suppresses open_loop_headroom).
 */
export function discoverGoodput(
  dir: string,
  modelName: string,
  qmax: QmaxArtifact,
  notes: string[],
): Found<GoodputArtifact> | null {
  const candidates = listModelArtifacts('goodput', dir, modelName, notes)
    .filter((g) => g.artifact.decided)
    .filter((g) => g.artifact.slo_ms === qmax.slo_ms)
    .filter((g) => fingerprintDifferences(g.artifact.fingerprint, qmax.fingerprint).length === 0)
    .sort(newestFirst);
  return candidates[0] ?? null;
}
