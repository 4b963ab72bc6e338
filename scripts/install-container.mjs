// Installs the reference TTS container's own dependencies (a separate program with its own
// package.json, see infra/container/README.md) so that `npm ci` at the root of a checkout prepares
// everything the local SageMaker runs. Installed as a package (`npm install scalegate`, `npx
// scalegate`), it does nothing: the container is optional there, and `scalegate local up` names
// the one command that installs its dependency when it is wanted (docs/install.md).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
if (root.split(sep).includes('node_modules')) process.exit(0);
// `npm install --package-lock-only` installs nothing, so there is nothing to prepare; the nested
// `npm ci` would inherit the flag from the environment and empty the container's node_modules.
if (process.env.npm_config_package_lock_only === 'true') process.exit(0);
const containerDir = join(root, 'infra', 'container');
if (!existsSync(join(containerDir, 'package-lock.json'))) process.exit(0);
const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: containerDir, stdio: 'inherit' });
process.exit(result.status ?? 1);
