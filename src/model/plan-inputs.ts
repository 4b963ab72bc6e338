/**
 * The measurements a plan says it was derived from, found in the artifacts directory, so that the
 * gate can derive the plan again and refuse one whose values do not follow from them. Found by
 * the file name the plan recorded, and accepted only when the run id matches; otherwise any
 * artifact of that kind and model in the directory with the recorded run id (files are renamed,
 * directories moved). Never "some measurement": a plan whose measurements are absent is refused.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type {
  GoodputArtifact,
  PlanArtifact,
  QmaxArtifact,
  TtotalArtifact,
  TuneArtifact,
} from './artifacts.js';
import type { DrillArtifact } from './drill.js';
import { isUsageError } from './errors.js';
import { readArtifact } from './io.js';

export interface PlanMeasurements {
  qmax: QmaxArtifact | null;
  /** Where the qmax artifact was found (or looked for). */
  qmaxFile: string;
  /**
   * SHA-256 of the qmax file's bytes (what binds a legacy measurement to the committed list,
   * src/model/legacy.ts); null or absent when not read from a file.
   */
  qmaxSha256?: string | null;
  /** null for a plan made with a stated T_total. */
  ttotal: TtotalArtifact | null;
  ttotalFile: string | null;
  /** null (or absent) for a plan made without `--drill`. */
  drill?: DrillArtifact | null;
  drillFile?: string | null;
  /** null (or absent) for a plan made without a goodput artifact. */
  goodput?: GoodputArtifact | null;
  goodputFile?: string | null;
  /** null (or absent) for a plan made without `--tune`. */
  tune?: TuneArtifact | null;
  tuneFile?: string | null;
  /** Why the measurements could not be used; null when everything the plan names was found. */
  error: string | null;
}

type Kind = 'qmax' | 'ttotal' | 'drill' | 'goodput' | 'tune';

type ArtifactFor<K extends Kind> = K extends 'qmax'
  ? QmaxArtifact
  : K extends 'ttotal'
    ? TtotalArtifact
    : K extends 'drill'
      ? DrillArtifact
      : K extends 'goodput'
        ? GoodputArtifact
        : TuneArtifact;

const sha256Of = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

function find<K extends Kind>(
  kind: K,
  recorded: { file: string; run_id: string },
  modelName: string,
  dir: string,
): {
  artifact: ArtifactFor<K> | null;
  file: string;
  sha256: string | null;
  error: string | null;
} {
  type A = ArtifactFor<K>;
  const named = join(dir, basename(recorded.file));
  const problems: string[] = [];
  if (existsSync(named)) {
    try {
      const artifact = readArtifact(kind, named) as A;
      if (artifact.run_id === recorded.run_id)
        return { artifact, file: named, sha256: sha256Of(named), error: null };
      problems.push(`${named} is run ${artifact.run_id}, not ${recorded.run_id}`);
    } catch (e) {
      if (!isUsageError(e)) throw e;
      problems.push(e.message);
    }
  }
  let names: string[] = [];
  try {
    names = readdirSync(dir).sort();
  } catch {
    // No directory: nothing to find.
  }
  for (const name of names) {
    if (!name.startsWith(`${kind}-${modelName}-`) || !name.endsWith('.json')) continue;
    const file = join(dir, name);
    if (file === named) continue;
    try {
      const artifact = readArtifact(kind, file) as A;
      if (artifact.run_id === recorded.run_id) return { artifact, file, sha256: sha256Of(file), error: null };
    } catch (e) {
      if (!isUsageError(e)) throw e;
    }
  }
  return {
    artifact: null,
    file: named,
    sha256: null,
    error: `the plan's ${kind} measurement (run ${recorded.run_id}, recorded as ${recorded.file}) is not in ${dir}${problems.length ? ` (${problems.join('; ')})` : ''}`,
  };
}

export function findPlanMeasurements(plan: PlanArtifact, artifactsDir: string): PlanMeasurements {
  const qmax = find('qmax', plan.inputs.qmax, plan.model_name, artifactsDir);
  const ttotal = plan.inputs.ttotal
    ? find('ttotal', plan.inputs.ttotal, plan.model_name, artifactsDir)
    : null;
  const drill = plan.inputs.drill ? find('drill', plan.inputs.drill, plan.model_name, artifactsDir) : null;
  const goodput = plan.inputs.goodput
    ? find('goodput', plan.inputs.goodput, plan.model_name, artifactsDir)
    : null;
  const tune = plan.inputs.tune ? find('tune', plan.inputs.tune, plan.model_name, artifactsDir) : null;
  const errors = [
    qmax.error,
    ttotal?.error ?? null,
    drill?.error ?? null,
    goodput?.error ?? null,
    tune?.error ?? null,
  ].filter((e): e is string => e !== null);
  return {
    qmax: qmax.artifact,
    qmaxFile: qmax.file,
    qmaxSha256: qmax.sha256,
    ttotal: ttotal?.artifact ?? null,
    ttotalFile: ttotal?.file ?? null,
    drill: drill?.artifact ?? null,
    drillFile: drill?.file ?? null,
    goodput: goodput?.artifact ?? null,
    goodputFile: goodput?.file ?? null,
    ...(tune ? { tune: tune.artifact, tuneFile: tune.file } : {}),
    error: errors.length ? errors.join('; ') : null,
  };
}
