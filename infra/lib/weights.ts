/**
 * Where each model's weights come from, for the ModelCacheStack's one-time sync into the weights
 * bucket (`s3://<bucket>/models/<model>/<revision>/`).
 *
 * The config schema (src/model/config.ts) has no field for this yet, so it is declared here;
 * a model without an entry gets a ModelCacheStack with nothing to sync. Neither current image
 * reads the bucket at start-up: the pinned Kokoro image bakes Kokoro-82M in at build time, and
 * the reference container's voice data ships inside it. Mounting the bucket into an image that
 * does not need it would add a download to every cold start and change T_total against the
 * measurement, so the endpoint only gets read access to its prefix.
 */
export interface WeightsSource {
  /** Hugging Face repository id. */
  repo: string;
  /** Branch, tag or commit; the sync runs once per revision (pin a commit to make it exact). */
  revision: string;
}

export const WEIGHTS_SOURCES: Readonly<Record<string, WeightsSource>> = {
  'kokoro-82m': { repo: 'hexgrad/Kokoro-82M', revision: 'main' },
};

export const weightsPrefix = (modelName: string): string => `models/${modelName}/`;
