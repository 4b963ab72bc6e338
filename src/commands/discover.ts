/**
 * Finding a model's measurements in the artifacts directory when the command line or the workflow
 * does not name the files (the CLI and the action share it): by model, then by fingerprint. The choice is deterministic and never uses file times
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
  opt,
  type QmaxArtifact,
  readArtifact,
  type TtotalArtifact,
  usage,
} from '../model/index.js';
import {
  discoveredGoodputLine,
  discoveredQmaxLine,
  discoveredTtotalLine,
  skippedMeasurementLine,
} from '../report/discovery-text.js';

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
  return configDifferences(fp, model).length === 0;
}

/** Where a measurement's fingerprint differs from what the config deploys (see fitsConfig). */
function configDifferences(fp: Fingerprint, model: ModelConfig) {
  const digest = model.image_uri ? imageDigestOf(model.image_uri) : fp.image_digest;
  return fingerprintDifferences(fp, configFingerprint(model, digest, fp.region));
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
      // Named field by field: an inference component's packing differs on the same instance type.
      notes.push(
        skippedMeasurementLine(
          q.file,
          modelName,
          q.artifact.fingerprint,
          configDifferences(q.artifact.fingerprint, model),
        ),
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

/** Which of a plan's inputs were named, and how discovery is allowed to fill the rest. */
export interface PlanInputNames {
  qmaxFile?: string;
  ttotalFile?: string;
  goodputFile?: string;
  assumeTTotalS?: number;
  allowLowerBound?: boolean;
}

export interface PlanInputs {
  qmax: Found<QmaxArtifact>;
  ttotal: Found<TtotalArtifact> | null;
  goodputFile: string | undefined;
  /** What discovery skipped and why. */
  notes: string[];
  /** One line per file discovery chose (discoveredQmaxLine, ...): say them where the run is watched. */
  chosen: string[];
}

/**
 * The measurements a plan uses, the CLI's and the action's alike: the files named, else the
 * newest qmax in `artifactsDir` whose fingerprint fits the config, its ttotal (same fingerprint,
 * the qmax's own run first, never a lower bound unless allowed) unless a T_total is stated, and
 * the newest decided goodput of the same fingerprint and SLO. Refused (exit 2) when no qmax fits.
 */
export function resolvePlanInputs(
  names: PlanInputNames,
  artifactsDir: string,
  modelName: string,
  model: ModelConfig,
): PlanInputs {
  const notes: string[] = [];
  const chosen: string[] = [];
  const allowLowerBound = names.allowLowerBound === true;
  const wantTtotal = names.ttotalFile === undefined && names.assumeTTotalS === undefined;
  let qmax: Found<QmaxArtifact> | null =
    names.qmaxFile === undefined
      ? null
      : { file: names.qmaxFile, artifact: readArtifact('qmax', names.qmaxFile) };
  let ttotal: Found<TtotalArtifact> | null =
    names.ttotalFile === undefined
      ? null
      : { file: names.ttotalFile, artifact: readArtifact('ttotal', names.ttotalFile) };
  if (!qmax) {
    const found = discoverMeasurements(artifactsDir, modelName, model, { allowLowerBound });
    notes.push(...found.notes.filter((n) => wantTtotal || !n.startsWith('no ttotal')));
    if (!found.qmax) {
      throw usage`no qmax artifact for ${modelName} in ${artifactsDir} measured on ${model.instance_type}: measure it first (\`scalegate qmax\`, the qmax step), or name the file with ${opt('qmax')}.`;
    }
    qmax = found.qmax;
    chosen.push(discoveredQmaxLine(qmax.file, modelName, qmax.artifact.fingerprint));
    if (wantTtotal) ttotal = found.ttotal;
  } else if (wantTtotal) {
    ttotal = chooseTtotal(artifactsDir, modelName, qmax, notes, allowLowerBound);
  }
  if (wantTtotal && ttotal) {
    const sameRun = ttotal.artifact.qmax_run_id === qmax.artifact.run_id;
    chosen.push(discoveredTtotalLine(ttotal.file, ttotal.artifact.fingerprint, sameRun));
  }
  if (wantTtotal && !ttotal) {
    // Say why before the plan refuses the missing T_total (a skipped lower bound is in the notes).
    const skipped = notes.filter((n) => n.includes('LOWER BOUND'));
    if (skipped.length > 0) {
      throw usage`no complete ttotal for ${modelName} in ${artifactsDir}: ${skipped.join('; ')}. Measure T_total to the end (\`scalegate ttotal\`, the ttotal step), or pass ${opt('allow-lower-bound')} to plan on the lower bound (labelled LOWER BOUND; the gate refuses it unless allowed there too).`;
    }
  }
  let goodputFile = names.goodputFile;
  if (goodputFile === undefined) {
    const found = discoverGoodput(artifactsDir, modelName, qmax.artifact, notes);
    if (found) {
      goodputFile = found.file;
      chosen.push(discoveredGoodputLine(found.file, found.artifact.fingerprint, found.artifact.slo_ms));
    }
  }
  return { qmax, ttotal, goodputFile, notes, chosen };
}

/** The qmax a ttotal probes from: the one named, else the newest whose fingerprint fits the config. */
export function resolveQmaxFile(
  qmaxFile: string | undefined,
  artifactsDir: string,
  modelName: string,
  model: ModelConfig,
): { qmaxFile: string; notes: string[]; chosen: string[] } {
  if (qmaxFile !== undefined) return { qmaxFile, notes: [], chosen: [] };
  const found = discoverMeasurements(artifactsDir, modelName, model);
  const notes = found.notes.filter((n) => !n.startsWith('no ttotal'));
  if (!found.qmax) {
    throw usage`no qmax artifact for ${modelName} in ${artifactsDir} measured on ${model.instance_type}: ttotal probes at rungs the qmax ladder measured. Measure it first (\`scalegate qmax\`, the qmax step), or name its file with ${opt('qmax')}.`;
  }
  return {
    qmaxFile: found.qmax.file,
    notes,
    chosen: [discoveredQmaxLine(found.qmax.file, modelName, found.qmax.artifact.fingerprint)],
  };
}
