/** What discovery chose, as one line (the CLI's stderr, the action's log). */
import { type Fingerprint, fingerprintSlug } from '../model/index.js';

const slug = (fp: Fingerprint): string => fingerprintSlug(fp);

export const discoveredQmaxLine = (file: string, model: string, fp: Fingerprint): string =>
  `qmax: using ${file} (newest for model ${model}, fingerprint ${slug(fp)})`;

export const discoveredTtotalLine = (file: string, fp: Fingerprint, sameRun: boolean): string =>
  `ttotal: using ${file} (${sameRun ? "measured from the qmax's own run, " : 'newest with '}the qmax's fingerprint ${slug(fp)})`;

/** A measurement discovery passed over: what it was measured on, and each field the config deploys otherwise. */
export const skippedMeasurementLine = (
  file: string,
  model: string,
  fp: Fingerprint,
  differences: { field: string; left: string; right: string }[],
): string =>
  `skipped ${file}: measured on ${slug(fp)}, which is not what ${model} deploys (${differences.map((d) => `${d.field}: ${d.left} measured, ${d.right} deployed`).join('; ')})`;

export const discoveredGoodputLine = (file: string, fp: Fingerprint, sloMs: number): string =>
  `goodput: using ${file} (newest decided one with the qmax's fingerprint ${slug(fp)} and SLO ${sloMs} ms)`;
