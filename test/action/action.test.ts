/**
 * The action's metadata and its commands without AWS: action.yml declares exactly what the entry
 * reads and writes, the composite actions fix their command and pass only declared inputs, and
 * refused inputs exit 2 with a message naming what to fix (never a stack trace, never a fake run).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTION_COMMANDS, ACTION_TABLES, COMMAND_INPUT, PUBLISH_INPUTS } from '../../src/action/inputs.js';
import { containerAssetHash } from '../../src/model/asset-hash.js';
import { type TtotalArtifact, writeArtifact } from '../../src/model/index.js';
import { inAction } from '../../src/options/spec.js';
import { repoRoot } from '../helpers/anchor.js';
import { artifactsDirWith, kokoroMeasurements, kokoroPlan } from '../infra/fixtures.js';
import { makeWorkspace, runStep } from './run-action.js';

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/** The keys of a top-level YAML mapping section (two-space indented `name:` lines). */
function sectionKeys(yaml: string, section: string): string[] {
  const lines = yaml.split('\n');
  const start = lines.indexOf(`${section}:`);
  if (start < 0) return [];
  const keys: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break;
    const m = /^ {2}([a-z][a-z0-9-]*):\s*$/.exec(line);
    if (m) keys.push(m[1] as string);
  }
  return keys;
}

const actionYml = read('action.yml');
const composites = readdirSync(join(repoRoot, 'actions'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && !d.name.startsWith('_'))
  .map((d) => d.name)
  .sort();

describe('action metadata', () => {
  it('runs the bundles on node24 with a post step that always runs (a cancelled qmax must still be thawed)', () => {
    expect(actionYml).toMatch(
      /\nruns:\n {2}using: node24\n {2}main: dist\/main\.mjs\n {2}post: dist\/post\.mjs\n {2}post-if: always\(\)\n/,
    );
  });

  it('declares exactly the inputs the entry reads, and every output it sets (an undeclared input is silently empty)', () => {
    // What the entry reads: `command`, how it publishes, and every command's option table.
    const consumed = [
      COMMAND_INPUT.name,
      ...Object.values(PUBLISH_INPUTS).map((spec) => spec.name),
      ...ACTION_COMMANDS.flatMap((c) => Object.values(ACTION_TABLES[c]).filter(inAction)).map(
        (spec) => spec.name,
      ),
    ];
    const declared = sectionKeys(actionYml, 'inputs');
    expect([...new Set(consumed)].sort()).toEqual([...declared].sort());
    const set = [...read('src/action/publish.ts').matchAll(/core\.setOutput\('([a-z-]+)'/g)].map((m) => m[1]);
    expect([...set].sort()).toEqual(sectionKeys(actionYml, 'outputs').sort());
    for (const required of [
      'verdict',
      'exit-code',
      'artifact-path',
      'q-max',
      't-total-s',
      'scaling-target-value',
      'scale-in-threshold',
      'comment-url',
    ]) {
      expect(set).toContain(required);
    }
    expect(actionYml).toMatch(/ {2}github-token:\n(?: {4}.*\n)*? {4}default: \$\{\{ github\.token \}\}/);
  });

  it.each(composites)(
    'actions/%s fixes its command, stages the root action, passes only declared inputs, pins third-party actions, never commits a failed ttotal',
    (step) => {
      const yml = read(`actions/${step}/action.yml`);
      expect(yml).toMatch(/\nruns:\n {2}using: composite\n/);
      expect(yml).toContain('run: bash "$GITHUB_ACTION_PATH/../_lib/stage-action.sh"');
      expect(yml).toContain(`uses: ./.scalegate/action\n      with:\n        command: ${step}\n`);
      const declared = new Set(sectionKeys(actionYml, 'inputs'));
      const passed = [...yml.matchAll(/^ {8}([a-z-]+): \$\{\{ inputs\.([a-z-]+) \}\}$/gm)];
      expect(passed.length).toBeGreaterThan(4);
      for (const [, name, from] of passed) {
        expect(declared.has(name as string), `${name} is not an input of action.yml`).toBe(true);
        expect(sectionKeys(yml, 'inputs')).toContain(from);
      }
      for (const [, uses] of yml.matchAll(/^\s+(?:- )?uses: (\S+)/gm)) {
        if (uses === './.scalegate/action') continue;
        expect(uses).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
      }
      // The artifacts are committed even when the verdict failed the step, never after a cancel;
      // except a ttotal that exited non-zero (a lower-bound T_total is no measurement to plan on).
      const expression =
        '$' +
        "{{ !cancelled() && inputs.commit == 'true' && steps.scalegate.outputs.written-files != ''" +
        (step === 'ttotal' ? " && steps.scalegate.outputs.exit-code == '0' }}" : ' }}');
      expect(yml).toContain(`      id: commit\n      if: ${expression}`);
      if (step === 'ttotal')
        expect(yml).toMatch(
          /name: scalegate-.*-ttotal\$\{\{ steps\.scalegate\.outputs\.exit-code != '0' && '-failed' \|\| '' \}\}-/,
        );
    },
  );

  it('has a composite action for every step (drill: a surge through the deployed plan; goodput and tune included)', () => {
    expect(composites).toEqual([
      'drift',
      'drill',
      'gate',
      'goodput',
      'plan',
      'qmax',
      'ttotal',
      'tune',
      'validate',
    ]);
  });
});

describe('refused inputs (exit 2, a message that names the fix)', () => {
  const step = (inputs: Record<string, string>) =>
    runStep({ entry: 'main', workspace: makeWorkspace({ withPlan: true }), eventName: 'push', inputs });

  it('refuses an unknown command and a malformed number, naming the input', async () => {
    const unknown = await step({ command: 'deploy', model: 'kokoro-82m' });
    expect(unknown.status).toBe(2);
    expect(unknown.stdout).toMatch(
      /::error::input command: one of drift, qmax, goodput, ttotal, plan, tune, validate, drill, thaw, gate, got "deploy"/,
    );
    expect(unknown.outputs).toMatchObject({ verdict: 'refused', 'exit-code': '2', 'artifact-path': '' });
    expect(unknown.summary).toContain('refused (exit 2)');

    const bad = await step({ command: 'plan', model: 'kokoro-82m', 'surge-ratio': 'lots' });
    expect(bad.status).toBe(2);
    expect(bad.stdout).toMatch(/input surge-ratio: needs a number, got "lots"/);
    expect(bad.stdout).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('refuses a plan without a measurement to plan from, saying which step to run', async () => {
    const empty = await runStep({
      entry: 'main',
      workspace: makeWorkspace(),
      eventName: 'push',
      inputs: { command: 'plan', model: 'reference-tts' },
    });
    expect(empty.status).toBe(2);
    expect(empty.stdout).toMatch(
      /no qmax artifact for reference-tts in artifacts measured on ml\.g5\.xlarge: measure it first \(`scalegate qmax`, the qmax step\)/,
    );
  });

  it('never plans on a lower-bound ttotal silently: discovery skips it and the step refuses, naming it; allow-lower-bound plans on it, labelled LOWER BOUND in the summary and the outputs', async () => {
    const workspace = makeWorkspace();
    const ttotalFile = join(workspace, 'artifacts', 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json');
    const unrecovered = kokoroMeasurements({ lowerBoundTtotal: true, region: null }).ttotal as TtotalArtifact;
    writeArtifact('ttotal', ttotalFile, unrecovered);
    const refused = await runStep({
      entry: 'main',
      workspace,
      eventName: 'push',
      inputs: { command: 'plan', model: 'kokoro-82m' },
    });
    expect(refused.status, refused.stdout).toBe(2);
    expect(refused.stdout).toMatch(
      /skipped .*ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc\.json: its T_total 260\.248496 s is only a LOWER BOUND/,
    );
    expect(refused.stdout).toMatch(/input allow-lower-bound/);
    const allowed = await runStep({
      entry: 'main',
      workspace,
      eventName: 'push',
      inputs: { command: 'plan', model: 'kokoro-82m', 'allow-lower-bound': 'true' },
    });
    expect(allowed.status, allowed.stdout).toBe(0);
    expect(allowed.outputs).toMatchObject({ 't-total-origin': 'lower-bound', 't-total-s': '260.248496' });
    expect(allowed.summary.split('\n')[0]).toBe(
      '## ⚠️ scalegate plan · kokoro-82m: **warn (5)** · T_total **LOWER BOUND** (≥ 260.2 s)',
    );
  });

  it('gates an image_uri model on its measured plan (exit 0, "passed")', async () => {
    // The committed Kokoro measurements predate recording their region, which the gate requires:
    // the same measurements with their region recorded, and the plan derived from them.
    const workspace = makeWorkspace();
    cpSync(artifactsDirWith({ 'kokoro-82m': kokoroPlan() }), join(workspace, 'artifacts'), {
      recursive: true,
    });
    const pass = await runStep({
      entry: 'main',
      workspace,
      eventName: 'push',
      inputs: { command: 'gate', model: 'kokoro-82m', offline: 'true' },
    });
    expect(pass.status, pass.stdout).toBe(0);
    expect(pass.outputs.verdict).toBe('passed');
    expect(pass.summary).toContain('### Gate checks');
  });

  it('gates a container_dir model on its CDK asset hash, and refuses when aws-cdk-lib is not installed (never a fake digest)', async () => {
    const workspace = makeWorkspace();
    cpSync(join(repoRoot, 'infra', 'container'), join(workspace, 'infra', 'container'), {
      recursive: true,
      filter: (src) => !/\/(node_modules|dist)(\/|$)/.test(src.slice(repoRoot.length)),
    });
    const digest = containerAssetHash(join(repoRoot, 'infra', 'container'));
    const gate = await runStep({
      entry: 'main',
      workspace,
      eventName: 'push',
      inputs: { command: 'gate', model: 'reference-tts', offline: 'true' },
    });
    // No plan for reference-tts is committed: refused on plan_readable, after hashing the image.
    expect(gate.status, gate.stdout).toBe(1);
    expect(gate.outputs.verdict).toBe('refused');
    expect(gate.stdout).toContain(`deploying image ${digest} (CDK asset hash of container_dir)`);
    expect(gate.summary).toMatch(/\| 🛑 \| `plan_readable` \|/);

    // The same bundle where no node_modules lies above it (a root action checked out under _actions/).
    const lonely = mkdtempSync(join(tmpdir(), 'scalegate-bundle-'));
    cpSync(join(repoRoot, 'dist', 'main.mjs'), join(lonely, 'main.mjs'));
    const env = {
      PATH: process.env.PATH ?? '',
      INPUT_COMMAND: 'gate',
      INPUT_MODEL: 'reference-tts',
      INPUT_OFFLINE: 'true',
      GITHUB_OUTPUT: join(lonely, 'out'),
      GITHUB_STATE: join(lonely, 'state'),
    };
    writeFileSync(env.GITHUB_OUTPUT, '');
    writeFileSync(env.GITHUB_STATE, '');
    const refused = spawnSync(process.execPath, [join(lonely, 'main.mjs')], {
      cwd: workspace,
      env,
      encoding: 'utf8',
    });
    expect(refused.status).toBe(2);
    expect(refused.stdout).toMatch(
      /container_dir model, whose image digest is its CDK asset hash, and aws-cdk-lib is not installed/,
    );
  });

  it('runs qmax as a dry run without AWS (the schedule, in the log and the summary)', async () => {
    const dry = await runStep({
      entry: 'main',
      workspace: makeWorkspace(),
      eventName: 'push',
      inputs: { command: 'qmax', model: 'kokoro-82m', 'dry-run': 'true' },
      env: { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'local' },
    });
    expect(dry.status, dry.stdout + dry.stderr).toBe(0);
    expect(dry.outputs['artifact-path']).toBe('');
    expect(dry.summary).toMatch(/```text\n/);
  });

  it('runs a drill as a dry run without AWS (phases, duration, cost in the log and the summary), and refuses a surge ratio outside 1..2 naming the input', async () => {
    const workspace = makeWorkspace({ withPlan: true });
    const env = { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'local' };
    const dry = await runStep({
      entry: 'main',
      workspace,
      eventName: 'push',
      inputs: { command: 'drill', model: 'kokoro-82m', 'dry-run': 'true', 'start-instances': '2' },
      env,
    });
    expect(dry.status, dry.stdout + dry.stderr).toBe(0);
    expect(dry.outputs['artifact-path']).toBe('');
    expect(dry.stdout).toMatch(/drill dry run: kokoro-82m .* 2 instance\(s\) at the start/);
    expect(dry.summary).toMatch(/instance-minutes: /);
    const bad = await runStep({
      entry: 'main',
      workspace,
      eventName: 'push',
      inputs: { command: 'drill', model: 'kokoro-82m', 'dry-run': 'true', 'surge-ratio': '3' },
      env,
    });
    expect(bad.status).toBe(2);
    expect(bad.stdout).toMatch(/input surge-ratio \(3\): a drill surges between 1 \(no surge\) and 2/);
  });

  it('runs goodput as a dry run without AWS (the Poisson ladder schedule and its cost, in the log and the summary)', async () => {
    const dry = await runStep({
      entry: 'main',
      workspace: makeWorkspace(),
      eventName: 'push',
      inputs: {
        command: 'goodput',
        model: 'kokoro-82m',
        'dry-run': 'true',
        'start-rate': '8',
        'max-rate': '32',
      },
      env: { AWS_ENDPOINT_URL: 'http://127.0.0.1:9', AWS_REGION: 'local' },
    });
    expect(dry.status, dry.stdout + dry.stderr).toBe(0);
    expect(dry.outputs['artifact-path']).toBe('');
    expect(dry.stdout).toMatch(/goodput dry run: kokoro-82m/);
    expect(dry.summary).toMatch(/worst case: \d+ rungs/);
  });

  it('refuses a goodput rate of 0 naming the input (exit 2, nothing written)', async () => {
    const run = await runStep({
      entry: 'main',
      workspace: makeWorkspace(),
      eventName: 'push',
      inputs: { command: 'goodput', model: 'kokoro-82m', rates: '5,0' },
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toMatch(/input rates: needs comma-separated positive rates/);
    expect(run.outputs['written-files']).toBe('');
  });

  it('publishes a command that fails on AWS (exit 3, "operational-error", the message in the summary) instead of dying silently or calling it a finding', async () => {
    const run = await runStep({
      entry: 'main',
      workspace: makeWorkspace(),
      eventName: 'push',
      inputs: { command: 'thaw', model: 'kokoro-82m' },
      env: {
        AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
        AWS_REGION: 'local',
        AWS_ACCESS_KEY_ID: 'x',
        AWS_SECRET_ACCESS_KEY: 'y',
        AWS_MAX_ATTEMPTS: '1',
      },
    });
    expect(run.status).toBe(3);
    expect(run.outputs).toMatchObject({ verdict: 'operational-error', 'exit-code': '3' });
    expect(run.summary.split('\n')[0]).toBe(
      '## ⛔ scalegate thaw · kokoro-82m: **operational error** (exit 3): not a finding',
    );
    expect(run.summary).toContain('ECONNREFUSED');
    expect(run.stdout).toMatch(/::error::scalegate thaw: operational error: .*ECONNREFUSED/);
  });
});
