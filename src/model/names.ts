import type { Transport } from './artifacts.js';
import { type Fingerprint, fingerprintSlug } from './fingerprint.js';
import { checkAwsName } from './safe.js';

export const DEFAULT_ARTIFACTS_DIR = 'artifacts';
/**
 * Where runs against the local SageMaker (a rehearsal, `npm start`, any command whose AWS clients
 * point at loopback) write by default: ignored by git, never mixed with the committed artifacts.
 */
export const LOCAL_ARTIFACTS_DIR = 'artifacts/local';

type Slugged = Pick<Fingerprint, 'instance_type' | 'image_digest'>;

export const qmaxFileName = (model: string, transport: Transport, fp: Slugged): string =>
  `qmax-${model}-${transport}-${fingerprintSlug(fp)}.json`;

export const ttotalFileName = (model: string, trigger: string, fp: Slugged): string =>
  `ttotal-${model}-${trigger}-${fingerprintSlug(fp)}.json`;

export const goodputFileName = (model: string, transport: Transport, fp: Slugged): string =>
  `goodput-${model}-${transport}-${fingerprintSlug(fp)}.json`;
/** A whole drill (one process, or its shards merged). */
export const drillFileName = (model: string, fp: Slugged): string =>
  `drill-${model}-${fingerprintSlug(fp)}.json`;
/** One shard's raw recording, for `scalegate drill merge`. */
export const drillShardFileName = (
  model: string,
  fp: Slugged,
  shard: { index: number; count: number },
): string => `drill-${model}-${fingerprintSlug(fp)}.shard-${shard.index}-of-${shard.count}.json`;
/** The drill's timeline chart, beside its artifact. */
export const drillChartFileName = (model: string, fp: Slugged): string =>
  `drill-${model}-${fingerprintSlug(fp)}.svg`;

export const planFileName = (model: string): string => `plan-${model}.json`;
export const driftFileName = (model: string): string => `drift-${model}.json`;
export const validateFileName = (model: string): string => `validate-${model}.json`;
export const tuneFileName = (model: string): string => `tune-${model}.json`;
export const compareFileName = (model: string): string => `compare-${model}.json`;
/**
 * Where a freeze records what to restore, so that `thaw` can undo it after a hard kill. The
 * endpoint name is checked against SageMaker's pattern first: a name such as `../../x` must never
 * become a path outside the state directory.
 */
export const thawJournalFileName = (endpoint: string): string =>
  `thaw-journal-${checkAwsName(endpoint, 'endpoint', 'endpoint')}.json`;
