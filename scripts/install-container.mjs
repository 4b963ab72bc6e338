// Installs the reference TTS container's own dependencies (a separate program with its own
// package.json, see infra/container/README.md) so that `npm ci` at the root prepares everything
// the local SageMaker runs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const containerDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'infra', 'container');
if (!existsSync(join(containerDir, 'package-lock.json'))) process.exit(0);
const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: containerDir, stdio: 'inherit' });
process.exit(result.status ?? 1);
