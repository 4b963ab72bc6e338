import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The real AWS measurements, as committed under artifacts/ (copies of ../shared/anchor-artifacts). */
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
