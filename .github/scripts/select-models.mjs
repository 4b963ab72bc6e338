#!/usr/bin/env node
// Which models a workflow run is about, as a JSON matrix `[{model, endpoint, region}]` on the
// step output `models` (and stdout).
//
//   node .github/scripts/select-models.mjs all                 every model in the config
//   node .github/scripts/select-models.mjs one <model>         that model (refused if unknown)
//   node .github/scripts/select-models.mjs changed <base> <head>
//       models whose measurement the change invalidates: the container directory changed, or the
//       model's entry changed in a way that changes its fingerprint or SLO (instance type, image,
//       container environment, region, variant, endpoint, slo_ms). Plan-only choices (load,
//       surge ratio, floor, prices) need no new measurement.
//
// No dependencies: runs right after checkout, before `npm ci`.
import { execFileSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';

const CONFIG = process.env.SCALEGATE_CONFIG || 'scalegate.config.json';
const MEASURED_KEYS = [
  'endpoint',
  'variant',
  'region',
  'instance_type',
  'container_dir',
  'image_uri',
  'container_env',
  'slo_ms',
];

const git = (...args) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const fail = (message) => {
  process.stderr.write(`::error title=scalegate::${message}\n`);
  process.exit(2);
};

function readConfig(text, where) {
  try {
    const config = JSON.parse(text);
    if (!config || typeof config.models !== 'object') throw new Error('no "models" object');
    return config;
  } catch (e) {
    return fail(`${where}: not a scalegate config (${e.message})`);
  }
}

const head = readConfig(readFileSync(CONFIG, 'utf8'), CONFIG);
const entry = (model) => ({
  model,
  endpoint: head.models[model].endpoint,
  region: head.models[model].region,
});
const measured = (m) => JSON.stringify(MEASURED_KEYS.map((k) => [k, m?.[k] ?? null]));

const [mode, a, b] = process.argv.slice(2);
let models;
if (mode === 'all') {
  models = Object.keys(head.models);
} else if (mode === 'one') {
  if (!a || !head.models[a])
    fail(`model "${a ?? ''}" is not in ${CONFIG} (declared: ${Object.keys(head.models).join(', ')})`);
  models = [a];
} else if (mode === 'changed') {
  if (!a || !b) fail('usage: select-models.mjs changed <base-sha> <head-sha>');
  const changedFiles = git('diff', '--name-only', `${a}...${b}`).split('\n').filter(Boolean);
  let base = { models: {} };
  try {
    base = readConfig(git('show', `${a}:${CONFIG}`), `${CONFIG} at ${a}`);
  } catch {
    // No config on the base: every model is new.
  }
  models = Object.keys(head.models).filter((name) => {
    const model = head.models[name];
    const dir = model.container_dir?.replace(/\/+$/, '');
    const containerChanged = dir ? changedFiles.some((f) => f === dir || f.startsWith(`${dir}/`)) : false;
    return containerChanged || measured(base.models[name]) !== measured(model);
  });
} else {
  fail('usage: select-models.mjs all | one <model> | changed <base> <head>');
}

const matrix = JSON.stringify(models.sort().map(entry));
process.stdout.write(`${matrix}\n`);
if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, `models=${matrix}\n`);
