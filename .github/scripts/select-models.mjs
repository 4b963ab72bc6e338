#!/usr/bin/env node
// Which models a workflow run is about, as a JSON matrix `[{model, endpoint, region}]` on the
// step output `models` (and stdout), and their candidate instance types as `candidates`
// (`[{model, endpoint, region, candidate, instance_type, calibration_endpoint, suffix}]`, candidate 0 the
// model's own instance type on `<endpoint>-calibration`, candidate n >= 1 on `<endpoint>-cal-<n>`).
//
//   node .github/scripts/select-models.mjs all                 every model in the config
//   node .github/scripts/select-models.mjs one <model>         that model (refused if unknown)
//   node .github/scripts/select-models.mjs changed <base> <head>
//       models whose measurement the change invalidates: the container directory changed, or the
//       model's entry changed in a way that changes its fingerprint or SLO (instance type, image,
//       container environment, request shape, region, variant, endpoint, slo_ms, calibration
//       placement, candidate instance types).
//       Plan-only choices (load, surge ratio, floor, prices) need no new measurement.
//   node .github/scripts/select-models.mjs pushed <base> <before> <after>
//       the same, for one push to a pull request (`synchronize`): only what changed between
//       <before> and <after>, so a push that does not touch a model re-runs no calibration. Nothing
//       at all for a push by a bot (ACTOR ending in [bot], or SENDER_TYPE Bot: the artifact
//       commits, with an App token too) or a push that only changes artifacts (ARTIFACTS_DIR,
//       default artifacts/). A force-push (<before> not an ancestor of <after>) is judged on the
//       whole pull request, <base>...<after>.
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
  'request',
  'slo_ms',
  'calibration',
  'candidates',
];
const ARTIFACTS_DIR = (process.env.ARTIFACTS_DIR || 'artifacts').replace(/\/+$/, '');

const git = (...args) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
const fail = (message) => {
  process.stderr.write(`::error title=scalegate::${message}\n`);
  process.exit(2);
};
const notice = (message) => process.stderr.write(`::notice title=scalegate::${message}\n`);
const SHA = /^[0-9a-f]{7,64}$/;
const isAncestor = (a, b) => {
  try {
    execFileSync('git', ['merge-base', '--is-ancestor', a, b], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
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
const changedFiles = (range) => git('diff', '--name-only', range).split('\n').filter(Boolean);

/** Models the changes in `range` invalidate, against the config as it was at `from`. */
function touched(from, range) {
  const files = changedFiles(range);
  let before = { models: {} };
  try {
    before = readConfig(git('show', `${from}:${CONFIG}`), `${CONFIG} at ${from}`);
  } catch {
    // No config there: every model is new.
  }
  return Object.keys(head.models).filter((name) => {
    const model = head.models[name];
    const dir = model.container_dir?.replace(/\/+$/, '');
    const containerChanged = dir ? files.some((f) => f === dir || f.startsWith(`${dir}/`)) : false;
    return containerChanged || measured(before.models[name]) !== measured(model);
  });
}

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
  models = touched(a, `${a}...${b}`);
} else if (mode === 'pushed') {
  const [, base, before, after] = process.argv.slice(2);
  if (![base, before, after].every((sha) => sha && SHA.test(sha)))
    fail('usage: select-models.mjs pushed <base-sha> <before-sha> <after-sha>');
  const actor = process.env.ACTOR ?? '';
  if (actor.endsWith('[bot]') || process.env.SENDER_TYPE === 'Bot') {
    notice(`push by ${actor || 'a bot'}: not calibrated (bots push the artifact commits)`);
    models = [];
  } else if (/^0+$/.test(before) || !isAncestor(before, after)) {
    notice(
      `${before.slice(0, 12)} is not an ancestor of ${after.slice(0, 12)} (a force-push): judging the whole pull request`,
    );
    models = touched(base, `${base}...${after}`);
  } else {
    const files = changedFiles(`${before}..${after}`);
    if (files.length > 0 && files.every((f) => f.startsWith(`${ARTIFACTS_DIR}/`))) {
      notice(`the push changes only ${ARTIFACTS_DIR}/: not calibrated`);
      models = [];
    } else {
      models = touched(before, `${before}..${after}`);
    }
  }
} else {
  fail('usage: select-models.mjs all | one <model> | changed <base> <head> | pushed <base> <before> <after>');
}

// Each model's candidate instance types for `scalegate compare`: the model's own (candidate 0, on
// `<endpoint>-calibration`), then each of `candidates[]` (candidate n on `<endpoint>-cal-<n>`).
const candidatesOf = (model) => {
  const m = head.models[model];
  return [{ instance_type: m.instance_type }, ...(Array.isArray(m.candidates) ? m.candidates : [])].map(
    (c, n) => ({
      ...entry(model),
      candidate: n,
      instance_type: c.instance_type,
      calibration_endpoint: n === 0 ? `${m.endpoint}-calibration` : `${m.endpoint}-cal-${n}`,
      // Appended to the candidate's upload names and concurrency group ('' for the model's own).
      suffix: n === 0 ? '' : `-cal-${n}`,
    }),
  );
};

const matrix = JSON.stringify(models.sort().map(entry));
const candidates = JSON.stringify(models.sort().flatMap(candidatesOf));
process.stdout.write(`${matrix}\n`);
if (process.env.GITHUB_OUTPUT)
  appendFileSync(process.env.GITHUB_OUTPUT, `models=${matrix}\ncandidates=${candidates}\n`);
