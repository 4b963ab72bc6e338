import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The real AWS measurements (the published Kokoro-82M anchor files), committed under artifacts/. */
export const anchorQmaxFile = join(
  repoRoot,
  'artifacts',
  'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json',
);
export const anchorTtotalFile = join(
  repoRoot,
  'artifacts',
  'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json',
);
export const configFile = join(repoRoot, 'scalegate.config.json');

/**
 * SHA-256 of the anchor files as published: the committed copies must stay byte-identical to
 * them (every plan-reproduction test reads these files).
 */
export const ANCHOR_SHA256: Readonly<Record<string, string>> = {
  'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json':
    '8730d05c598c0ba4a5a05c73e66c71e2171f8278764626ede370cb57543270cf',
  'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json':
    '926eda591c801a41868c3ecec180dddb62ba04b1d3fe071bd1bd2519c20b194c',
};
