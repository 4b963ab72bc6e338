/**
 * The only place that reads and writes artifact files. Reading validates and upgrades (legacy
 * format -> current); writing validates and is atomic (temp file + rename), so a crash never
 * leaves a half-written artifact where a reader would find it.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, sep } from 'node:path';
import type { z } from 'zod';
import {
  producerOf as measurementProducers,
  artifactSchemas as measurementSchemas,
  SCHEMA_VERSION,
} from './artifacts.js';
import { drillArtifactSchema, drillShardArtifactSchema } from './drill.js';
import { UsageError } from './errors.js';
import { checkArtifactHistograms } from './hdr-bounds.js';
import { HDR_ENCODING } from './histograms.js';
import { formatZodIssues } from './issues.js';
import { legacyQmaxSchema, legacyTtotalSchema, qmaxFromLegacy, ttotalFromLegacy } from './legacy.js';
import { parseJsonText, READ_LIMITS, readBoundedFile } from './read.js';
import { printable } from './safe.js';

/** Every kind of artifact scalegate reads and writes: the measurements and plan, and the drill's. */
const artifactSchemas = {
  ...measurementSchemas,
  drill: drillArtifactSchema,
  'drill-shard': drillShardArtifactSchema,
} as const;

export type ArtifactKind = keyof typeof artifactSchemas;
export type ArtifactOf<K extends ArtifactKind> = z.infer<(typeof artifactSchemas)[K]>;

const producerOf: Record<ArtifactKind, string> = {
  ...measurementProducers,
  drill: 'scalegate drill (or scalegate drill merge for shards)',
  'drill-shard': 'scalegate drill --shard i/n --start-at T',
};

/** The kinds that carry HDR histograms per window (larger files, bounded decoding). */
const HISTOGRAM_KINDS: ReadonlySet<ArtifactKind> = new Set(['goodput', 'drill', 'drill-shard']);

/** The largest file of `kind` that is read (READ_LIMITS). */
export const artifactReadLimit = (kind: ArtifactKind): number =>
  HISTOGRAM_KINDS.has(kind) ? READ_LIMITS.histogramArtifact : READ_LIMITS.artifact;

/** A value of the file, as a message may quote it: escaped, short. */
const quoted = (value: unknown): string => printable(JSON.stringify(value) ?? String(value), 60);

/**
 * Validates parsed JSON as an artifact of `kind`; `file` names the source in every message. The
 * HDR histograms of a goodput or drill artifact are checked within their bounds (hdr-bounds.ts)
 * here, so nothing decodes one that is not.
 */
export function parseArtifact<K extends ArtifactKind>(kind: K, json: unknown, file: string): ArtifactOf<K> {
  const producer = producerOf[kind];
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new UsageError(
      `${file}: not a ${kind} artifact (expected a JSON object). Produce one with \`${producer}\`.`,
    );
  }
  const record = json as Record<string, unknown>;
  const version = record.schema_version;
  if (version === undefined) return parseLegacy(kind, record, file);
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new UsageError(`${file}: schema_version must be a positive integer, found ${quoted(version)}.`);
  }
  if (version > SCHEMA_VERSION) {
    throw new UsageError(
      `${file}: written by a newer scalegate (schema_version ${version}; this scalegate reads up to ${SCHEMA_VERSION}). Upgrade scalegate to read it.`,
    );
  }
  if (record.kind !== kind) {
    throw new UsageError(
      `${file}: is a ${quoted(record.kind)} artifact where a ${kind} artifact is needed. Produce one with \`${producer}\`.`,
    );
  }
  const parsed = artifactSchemas[kind].safeParse(json);
  if (!parsed.success) {
    throw new UsageError(
      `${file}: invalid ${kind} artifact:\n${formatZodIssues(parsed.error)}\nProduce a valid one with \`${producer}\`.`,
    );
  }
  if (HISTOGRAM_KINDS.has(kind)) {
    const problem = checkArtifactHistograms(parsed.data, HDR_ENCODING);
    if (problem !== null) {
      throw new UsageError(
        `${file}: invalid ${kind} artifact:\n  - ${problem}\nProduce a valid one with \`${producer}\`.`,
      );
    }
  }
  return parsed.data as ArtifactOf<K>;
}

function parseLegacy<K extends ArtifactKind>(
  kind: K,
  record: Record<string, unknown>,
  file: string,
): ArtifactOf<K> {
  const invalid = (issues: string): UsageError =>
    new UsageError(
      `${file}: no schema_version, and not a valid legacy ${kind} artifact:\n${issues}\nProduce a current one with \`${producerOf[kind]}\`.`,
    );
  // The upgraded artifact must also pass the current schema (its bounds and safe strings): the
  // legacy format is no back door for a value the current one refuses.
  const current = (upgraded: unknown): ArtifactOf<K> => {
    const checked = artifactSchemas[kind].safeParse(upgraded);
    if (!checked.success) throw invalid(formatZodIssues(checked.error));
    return checked.data as ArtifactOf<K>;
  };
  if (kind === 'qmax') {
    const parsed = legacyQmaxSchema.safeParse(record);
    if (!parsed.success) throw invalid(formatZodIssues(parsed.error));
    return current(qmaxFromLegacy(parsed.data));
  }
  if (kind === 'ttotal') {
    const parsed = legacyTtotalSchema.safeParse(record);
    if (!parsed.success) throw invalid(formatZodIssues(parsed.error));
    return current(ttotalFromLegacy(parsed.data));
  }
  throw invalid(`  - schema_version: required (${kind} artifacts have no legacy format)`);
}

export function readArtifact<K extends ArtifactKind>(kind: K, file: string): ArtifactOf<K> {
  const fix = `Produce one with \`${producerOf[kind]}\`.`;
  const text = readBoundedFile(file, {
    maxBytes: artifactReadLimit(kind),
    label: `the ${kind} artifact`,
    fix,
  });
  const json = parseJsonText(text, printable(file), `Produce a valid one with \`${producerOf[kind]}\`.`);
  return parseArtifact(kind, json, file);
}

/**
 * Refuses an output path that names a directory (`--out dir/`, or an existing directory): the
 * message names the flag and the fix, before anything is measured or written. Commands call it
 * on their `--out` as soon as they parse it; the writers call it again as the last line.
 */
export function checkOutputFile(file: string, flag = '--out'): string {
  const endsWithSeparator = file.endsWith('/') || file.endsWith(sep);
  let isDirectory = false;
  try {
    isDirectory = statSync(file).isDirectory();
  } catch {
    // Does not exist yet: that is the usual case.
  }
  if (file === '' || endsWithSeparator || isDirectory) {
    throw new UsageError(
      `${flag} ${JSON.stringify(file)}: names a directory, not a file. Give a file name (e.g. ${flag} ${file.replace(/[\\/]+$/, '') || '.'}/<name>.json), or leave ${flag} out for the default name.`,
    );
  }
  return file;
}

/** fsync of a directory, so a rename in it survives a power cut. Some platforms cannot: skipped. */
function fsyncDirectory(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw e;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes text so that readers see the old file or the new one, never a part: temp file, fsync,
 * rename, then fsync of the directory (the rename itself is durable only once the directory is).
 */
export function writeFileAtomic(file: string, text: string): void {
  checkOutputFile(file);
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(temp, 'w');
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
  fsyncDirectory(dir);
}

/** Stable, diff-friendly artifact JSON (two-space indent, trailing newline). */
export const artifactJson = (artifact: unknown): string => `${JSON.stringify(artifact, null, 2)}\n`;

/** Validates before writing: an artifact that would not read back is a bug, never a file. */
export function writeArtifact<K extends ArtifactKind>(kind: K, file: string, artifact: ArtifactOf<K>): void {
  const parsed = artifactSchemas[kind].safeParse(artifact);
  if (!parsed.success) {
    throw new Error(
      `refusing to write an invalid ${kind} artifact to ${file}:\n${formatZodIssues(parsed.error)}`,
    );
  }
  writeFileAtomic(file, artifactJson(parsed.data));
}
