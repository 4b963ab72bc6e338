#!/usr/bin/env node
// What a pull request brings to its calibration, taken as data by the default branch's code:
//
//   node .github/scripts/pr-inputs.mjs <model> <pr-checkout>
//
// Run at the root of the default branch's checkout (the workspace: scalegate's code, its
// node_modules, its ./actions). <pr-checkout> is the pull request's head, checked out into a
// directory of its own. From it this script takes exactly two things, and runs nothing of it:
//
// (a) the model's entry in the PR's scalegate.config.json (a regular file, at most
//     SCALEGATE_PR_CONFIG_LIMIT bytes, default 1 MiB): the workspace's config is rewritten as the
//     default branch's with that one entry replaced by the PR's (every other model stays the
//     default branch's), after the default branch's CLI has validated the result against its
//     schema (`scalegate deploy <model> --calibration --dry-run`, which makes no AWS call);
// (b) the model's `container_dir`, if it has one: copied into the workspace at the same relative
//     path (so its CDK asset hash, the image digest the measurements carry, is the one the
//     release computes after the merge), symlinks kept as links. Refused: a path outside the PR
//     checkout, through a symlink, or whose links point out of the directory; a path where the
//     workspace keeps scalegate's own code (.github, actions, bin, dist, scripts, src, artifacts,
//     .scalegate, any node_modules or .git); and an existing path of the workspace that is not a
//     container_dir of the default branch's config (a copy never overwrites anything else).
// (c) when the PR carries `artifacts/tune-<model>.json` (a tuned policy it proposes), that file
//     and the trace it was tuned on (a regular file of the PR named by its trace.source, or a
//     built-in `shape:`), copied as data into $RUNNER_TEMP/pr-tune/ (tune.json, and trace.csv or
//     shape), never into the workspace; the calibrate job tunes again on them with its own
//     measurements (output `tune-dir`, empty without a tune).
//
// Exit 0 done, 2 refused (an ::error names the file and what to change). No dependencies.
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const CONFIG = 'scalegate.config.json';
const LIMIT = Number(process.env.SCALEGATE_PR_CONFIG_LIMIT || 1024 * 1024);
/** Entries a container directory may hold (a build context, not a data set). */
const MAX_ENTRIES = 20000;
/** Where the workspace keeps scalegate's own code and state: never a container_dir. */
const RESERVED_TOP = new Set([
  '.github',
  'actions',
  'artifacts',
  'bin',
  'dist',
  'scripts',
  'src',
  '.scalegate',
]);
const RESERVED_ANY = new Set(['.git', 'node_modules']);
/** The largest tune artifact and trace taken from a pull request. */
const TUNE_LIMIT = 16 * 1024 * 1024;
const TRACE_LIMIT = 64 * 1024 * 1024;
const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'scalegate.mjs');

const fail = (message) => {
  process.stderr.write(`::error title=scalegate::${message}\n`);
  process.exit(2);
};
const inside = (root, path) => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/** Reads a JSON file that is data from the pull request: no symlink, bounded size. */
function readJson(file, label) {
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    return fail(`${label}: no such file`);
  }
  if (stat.isSymbolicLink()) fail(`${label} is a symlink: commit the file itself`);
  if (!stat.isFile()) fail(`${label} is not a regular file`);
  if (stat.size > LIMIT) fail(`${label} is ${stat.size} bytes, more than the ${LIMIT} a config may have`);
  // Read at most LIMIT + 1 bytes, whatever the file became since the lstat.
  const buffer = Buffer.alloc(LIMIT + 1);
  const fd = openSync(file, 'r');
  let size = 0;
  try {
    for (let n = 1; n > 0 && size <= LIMIT; size += n) n = readSync(fd, buffer, size, LIMIT + 1 - size, null);
  } finally {
    closeSync(fd);
  }
  if (size > LIMIT) fail(`${label} is more than the ${LIMIT} bytes a config may have`);
  try {
    const json = JSON.parse(buffer.subarray(0, size).toString('utf8'));
    if (!json || typeof json !== 'object' || Array.isArray(json)) throw new Error('not a JSON object');
    if (!json.models || typeof json.models !== 'object' || Array.isArray(json.models))
      throw new Error('no "models" object');
    return json;
  } catch (e) {
    return fail(`${label}: not a scalegate config (${e.message})`);
  }
}

/** Every entry under `dir`: no special files, every symlink resolving inside `dir`. */
function checkTree(dir, rel, label) {
  let entries = 0;
  const walk = (at) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      const shown = `${rel}/${relative(dir, path).split(sep).join('/')}`;
      if (++entries > MAX_ENTRIES)
        fail(`${label} holds more than ${MAX_ENTRIES} entries: a build context, not a data set`);
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) {
        let target;
        try {
          target = realpathSync(path);
        } catch {
          fail(`${shown} is a symlink to nothing (${readlinkSync(path)}): remove it`);
        }
        if (!inside(dir, target))
          fail(
            `${shown} is a symlink out of ${label} (${readlinkSync(path)}): copy the file into the directory`,
          );
      } else if (stat.isDirectory()) {
        walk(path);
      } else if (!stat.isFile()) {
        fail(`${shown} is not a regular file, directory or symlink`);
      }
    }
  };
  walk(dir);
}

/** The container directory: where it comes from in the PR, where it goes in the workspace. */
function containerPaths(dirValue, workspace, prRoot, base) {
  const label = `container_dir "${dirValue}"`;
  if (typeof dirValue !== 'string' || dirValue === '') fail(`${label}: not a directory path`);
  if (isAbsolute(dirValue) || dirValue.includes('\\') || [...dirValue].some((ch) => ch.charCodeAt(0) < 0x20))
    fail(`${label}: give a path relative to the repository root, with / separators`);
  const rel = posix.normalize(dirValue).replace(/\/+$/, '');
  const parts = rel.split('/');
  if (rel === '.' || rel === '..' || parts[0] === '..')
    fail(
      `${label} is not a directory inside the repository: give the model's own directory (such as models/<model>)`,
    );
  if (RESERVED_TOP.has(parts[0]) || parts.some((p) => RESERVED_ANY.has(p)))
    fail(
      `${label} is where scalegate keeps its own code or state: put the container in a directory of its own (such as models/<model>)`,
    );
  const source = resolve(prRoot, rel);
  let real;
  try {
    real = realpathSync(source);
  } catch {
    fail(`${label}: no such directory in the pull request`);
  }
  if (real !== source) fail(`${label} goes through a symlink in the pull request: name the directory itself`);
  if (!lstatSync(source).isDirectory()) fail(`${label} is not a directory in the pull request`);
  const target = resolve(workspace, rel);
  if (inside(prRoot, target) || inside(target, prRoot))
    fail(`${label} overlaps the pull request's checkout: name the model's own directory`);
  // No symlink on the way to it in the workspace either; and it replaces nothing but a container.
  for (let at = target; at !== workspace; at = dirname(at)) {
    let stat;
    try {
      stat = lstatSync(at);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink())
      fail(`${label}: ${relative(workspace, at)} is a symlink in the default branch's checkout`);
  }
  const declared = new Set(
    Object.values(base.models)
      .map((m) =>
        typeof m?.container_dir === 'string' ? posix.normalize(m.container_dir).replace(/\/+$/, '') : null,
      )
      .filter(Boolean),
  );
  let exists = true;
  try {
    lstatSync(target);
  } catch {
    exists = false;
  }
  if (exists && !declared.has(rel))
    fail(
      `${label} already exists on the default branch and is no model's container_dir there: give the container a directory of its own`,
    );
  return { rel, source, target, label };
}

const [model, prArg] = process.argv.slice(2);
if (!model || !prArg) fail('usage: pr-inputs.mjs <model> <pr-checkout-dir>');
if (!/^[a-z0-9][a-z0-9-]*$/.test(model)) fail(`"${model}" is not a model name`);
const workspace = realpathSync(process.cwd());
let prRoot;
try {
  prRoot = realpathSync(prArg);
} catch {
  fail(`${prArg}: no such directory (the pull request's checkout)`);
}
if (prRoot === workspace || inside(prRoot, workspace))
  fail(`${prArg}: the pull request's checkout must be a directory of its own`);

const prLabel = `the pull request's ${CONFIG}`;
const pr = readJson(join(prRoot, CONFIG), prLabel);
const entry = pr.models[model];
if (!entry || typeof entry !== 'object' || Array.isArray(entry))
  fail(`model "${model}" is not in ${prLabel} (declared: ${Object.keys(pr.models).join(', ') || 'none'})`);
let base = { models: {} };
try {
  lstatSync(join(workspace, CONFIG));
  base = readJson(join(workspace, CONFIG), `the default branch's ${CONFIG}`);
} catch (e) {
  if (e?.code !== 'ENOENT') throw e;
}

const container =
  entry.container_dir === undefined ? null : containerPaths(entry.container_dir, workspace, prRoot, base);
if (container) checkTree(container.source, container.rel, container.label);

/** A regular file of the PR checkout by its relative path: no symlink on the way, at most `limit` bytes. */
function readPrFile(rel, label, limit) {
  if (typeof rel !== 'string' || rel === '' || isAbsolute(rel) || rel.split(/[\\/]/).includes('..'))
    fail(`${label}: ${String(rel)} is not a path inside the pull request`);
  const file = join(prRoot, rel);
  let real;
  try {
    real = realpathSync(file);
  } catch {
    return fail(`${label}: ${rel} is not in the pull request`);
  }
  if (real !== resolve(file) || !inside(prRoot, real))
    fail(`${label}: ${rel} is reached through a symlink: commit the file itself`);
  const stat = lstatSync(real);
  if (!stat.isFile()) fail(`${label}: ${rel} is not a regular file`);
  if (stat.size > limit) fail(`${label}: ${rel} is ${stat.size} bytes, more than ${limit}`);
  const bytes = readFileSync(real);
  if (bytes.length > limit) fail(`${label}: ${rel} is more than ${limit} bytes`);
  return bytes;
}

// (c) The tuned policy the PR proposes, and its trace: read (and refused) before anything changes.
const tuneRel = `artifacts/tune-${model}.json`;
let tuneFiles = null;
let tuneStat = null;
try {
  tuneStat = lstatSync(join(prRoot, tuneRel));
} catch {
  // No tune in the pull request.
}
if (tuneStat) {
  const label = `the pull request's ${tuneRel}`;
  const bytes = readPrFile(tuneRel, label, TUNE_LIMIT);
  let source;
  try {
    source = JSON.parse(bytes.toString('utf8'))?.trace?.source;
  } catch (e) {
    fail(`${label}: not JSON (${e.message})`);
  }
  if (typeof source !== 'string') fail(`${label}: no trace.source: write it with \`scalegate tune\``);
  tuneFiles = {
    'tune.json': bytes,
    ...(source.startsWith('shape:')
      ? { shape: source.slice('shape:'.length) }
      : { 'trace.csv': readPrFile(source, `${label} (its trace)`, TRACE_LIMIT) }),
  };
}

// The default branch's config with the PR's entry for this model, validated by the default
// branch's CLI before anything in the workspace changes.
const merged = { ...base, models: { ...base.models, [model]: entry } };
const text = `${JSON.stringify(merged, null, 2)}\n`;
const scratch = mkdtempSync(join(tmpdir(), 'scalegate-pr-inputs-'));
try {
  const candidate = join(scratch, CONFIG);
  writeFileSync(candidate, text);
  const check = spawnSync(
    process.execPath,
    [CLI, 'deploy', model, '--calibration', '--dry-run', '--config', candidate],
    { cwd: workspace, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
  );
  if (check.status !== 0) {
    const why = `${check.stderr}${check.stdout}`
      .split(candidate)
      .join(`${CONFIG} (${model} from the pull request)`)
      .trim();
    fail(
      `the pull request's entry for ${model} is not valid on the default branch: ${why.replace(/\n/g, '%0A')}`,
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

if (container) {
  rmSync(container.target, { recursive: true, force: true });
  cpSync(container.source, container.target, { recursive: true, verbatimSymlinks: true, errorOnExist: true });
}
writeFileSync(join(workspace, CONFIG), text);
const summary = container
  ? `${model}: the entry and ${container.rel}/ from the pull request; every other file is the default branch's`
  : `${model}: the entry from the pull request (image_uri); every other file is the default branch's`;
process.stdout.write(`${summary}\n`);
let tuneDir = '';
if (tuneFiles) {
  tuneDir = join(process.env.RUNNER_TEMP || tmpdir(), 'pr-tune');
  rmSync(tuneDir, { recursive: true, force: true });
  mkdirSync(tuneDir, { recursive: true });
  for (const [name, content] of Object.entries(tuneFiles)) writeFileSync(join(tuneDir, name), content);
  process.stdout.write(`${model}: ${tuneRel} and its trace from the pull request, as data in ${tuneDir}\n`);
}
if (process.env.GITHUB_OUTPUT)
  appendFileSync(process.env.GITHUB_OUTPUT, `container-dir=${container?.rel ?? ''}\ntune-dir=${tuneDir}\n`);
