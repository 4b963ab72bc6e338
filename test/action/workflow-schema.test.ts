/**
 * Every action.yml and workflow of the repository against the published schemas (the pinned
 * @action-validator/core, offline), so a typo in a key fails here rather than on a user's runner;
 * every `with:` key against the inputs of the action it is given to; every third-party action
 * pinned to a commit of a node24 release; and the write token and the concurrency groups where
 * docs/security.md says they are.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/anchor.js';

const require = createRequire(import.meta.url);
const validator = require('@action-validator/core') as {
  validateAction(src: string): { errors: unknown[] };
  validateWorkflow(src: string): { errors: unknown[] };
};

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
/** A GitHub expression as written in YAML: `${{ body }}`. */
const expr = (body: string) => `$${'{{'} ${body} }}`;
const composites = readdirSync(join(repoRoot, 'actions'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && !d.name.startsWith('_'))
  .map((d) => `actions/${d.name}/action.yml`)
  .sort();
const workflows = readdirSync(join(repoRoot, '.github', 'workflows'))
  .filter((f) => f.endsWith('.yml'))
  .map((f) => `.github/workflows/${f}`);
const actionFiles = ['action.yml', ...composites];

/**
 * The validator's bundled schema (0.6.0, the latest release) lists node12/16/20 as `runs.using`;
 * the runner also takes node24, which the root action uses on purpose. That one value is asserted
 * here and swapped for node20 before validation; everything else is validated as written.
 */
function forValidator(text: string): string {
  return text.replace(/^( {2}using:) node24$/m, '$1 node20');
}

/**
 * The same schema predates the `attestations` permission (artifact attestations), which the
 * calibrate job needs and which the tests below assert where it is. Those lines are dropped before
 * validation; everything else is validated as written.
 */
function workflowForValidator(text: string): string {
  return text.replace(/^ +attestations: (read|write|none)(?: #.*)?\n/gm, '');
}

/**
 * Third-party actions, pinned by commit to a release whose action.yml says `using: node24`, with
 * the inputs that release declares. Checked against each repository at the pinned commit.
 */
const PINNED: Record<string, { version: string; inputs: string[] }> = {
  'actions/checkout@8e8c483db84b4bee98b60c0593521ed34d9990e8': {
    version: 'v6.0.1',
    inputs: [
      'repository',
      'ref',
      'token',
      'ssh-key',
      'ssh-known-hosts',
      'ssh-strict',
      'ssh-user',
      'persist-credentials',
      'path',
      'clean',
      'filter',
      'sparse-checkout',
      'sparse-checkout-cone-mode',
      'fetch-depth',
      'fetch-tags',
      'show-progress',
      'lfs',
      'submodules',
      'set-safe-directory',
      'github-server-url',
    ],
  },
  'actions/setup-node@6044e13b5dc448c55e2357c09f80417699197238': {
    version: 'v6.2.0',
    inputs: [
      'node-version',
      'node-version-file',
      'architecture',
      'check-latest',
      'registry-url',
      'scope',
      'token',
      'cache',
      'package-manager-cache',
      'cache-dependency-path',
      'mirror',
      'mirror-token',
    ],
  },
  'actions/upload-artifact@b7c566a772e6b6bfb58ed0dc250532a479d7789f': {
    version: 'v6.0.0',
    inputs: [
      'name',
      'path',
      'if-no-files-found',
      'retention-days',
      'compression-level',
      'overwrite',
      'include-hidden-files',
    ],
  },
  'actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c': {
    version: 'v8.0.1',
    inputs: [
      'name',
      'artifact-ids',
      'path',
      'pattern',
      'merge-multiple',
      'github-token',
      'repository',
      'run-id',
      'skip-decompress',
      'digest-mismatch',
    ],
  },
  'aws-actions/configure-aws-credentials@e6de054238d6b7531b4efff3b6587d9aade6a06c': {
    version: 'v6.2.3',
    inputs: [
      'aws-region',
      'aws-profile',
      'overwrite-aws-profile',
      'role-to-assume',
      'aws-access-key-id',
      'aws-secret-access-key',
      'aws-session-token',
      'web-identity-token-file',
      'role-chaining',
      'audience',
      'http-proxy',
      'no-proxy',
      'mask-aws-account-id',
      'role-duration-seconds',
      'role-external-id',
      'role-session-name',
      'role-skip-session-tagging',
      'transitive-tag-keys',
      'inline-session-policy',
      'managed-session-policies',
      'output-credentials',
      'output-env-credentials',
      'unset-current-credentials',
      'disable-retry',
      'retry-max-attempts',
      'special-characters-workaround',
      'use-existing-credentials',
      'allowed-account-ids',
      'force-skip-oidc',
      'action-timeout-s',
      'custom-tags',
      'sts-endpoint',
    ],
  },
};

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}
interface Job {
  steps?: Step[];
  permissions?: Record<string, string> | string;
  environment?: string;
  concurrency?: { group: string };
}

const stepsIn = (file: string, text: string): Step[] => {
  const doc = parse(text);
  if (file.endsWith('action.yml')) return (doc.runs?.steps ?? []) as Step[];
  return Object.values(doc.jobs as Record<string, Job>).flatMap((job) => job.steps ?? []);
};
const stepsOf = (file: string): Step[] => stepsIn(file, read(file));
const inputsOf = (file: string): string[] => Object.keys(parse(read(file)).inputs ?? {});

/** Every `with:` key of `text` that the action it is given to does not declare. */
function undeclaredInputs(file: string, text: string): string[] {
  const problems: string[] = [];
  for (const step of stepsIn(file, text).filter((s) => s.uses)) {
    const uses = step.uses as string;
    let declared: string[] | undefined;
    if (uses.startsWith('./')) {
      declared = inputsOf(uses === './.scalegate/action' ? 'action.yml' : `${uses.slice(2)}/action.yml`);
    } else {
      declared = PINNED[uses]?.inputs;
      if (!declared) problems.push(`${file}: ${uses} is not a known node24 release pin`);
    }
    for (const key of Object.keys(step.with ?? {})) {
      if (declared && !declared.includes(key)) problems.push(`${file}: ${uses} has no input ${key}`);
    }
  }
  return problems;
}

describe('schemas (a typo in a key fails CI)', () => {
  it.each(actionFiles)('%s is a valid action', (file) => {
    const text = read(file);
    if (file === 'action.yml') expect(text).toMatch(/^ {2}using: node24$/m);
    expect(validator.validateAction(forValidator(text)).errors).toEqual([]);
  });

  it.each(workflows)('%s is a valid workflow', (file) => {
    expect(validator.validateWorkflow(workflowForValidator(read(file))).errors).toEqual([]);
  });

  it('catches a typo in an input definition and in a workflow key (the validator is not a no-op)', () => {
    const action = read('actions/plan/action.yml').replace('    required: false', '    requried: false');
    expect(validator.validateAction(action).errors.length).toBeGreaterThan(0);
    const workflow = read('.github/workflows/ci.yml').replace('runs-on:', 'runs-onn:');
    expect(validator.validateWorkflow(workflow).errors.length).toBeGreaterThan(0);
  });
});

describe('inputs passed are inputs declared', () => {
  it.each([...actionFiles, ...workflows])('%s passes every action only inputs it declares', (file) => {
    expect(undeclaredInputs(file, read(file))).toEqual([]);
  });

  it('catches a mistyped with: key, for a local action and a pinned one', () => {
    const text = read('.github/workflows/calibrate.yml')
      .replace(
        `endpoint: ${expr('env.CALIBRATION_ENDPOINT')}`,
        `enpoint: ${expr('env.CALIBRATION_ENDPOINT')}`,
      )
      .replace('role-to-assume:', 'role-to-asume:');
    expect(undeclaredInputs('.github/workflows/calibrate.yml', text)).toEqual(
      expect.arrayContaining([
        '.github/workflows/calibrate.yml: ./actions/drift has no input enpoint',
        '.github/workflows/calibrate.yml: aws-actions/configure-aws-credentials@e6de054238d6b7531b4efff3b6587d9aade6a06c has no input role-to-asume',
      ]),
    );
  });
});

describe('pins: third-party actions on commits of node24 releases', () => {
  it('pins every third-party action by a 40-hex commit whose comment names the release', () => {
    for (const file of [...actionFiles, ...workflows]) {
      for (const [, ref, comment] of read(file).matchAll(/uses: ([\w.-]+\/[\w.-]+@\S+)(?: # (\S+))?/g)) {
        expect(ref, file).toMatch(/@[0-9a-f]{40}$/);
        expect(PINNED[ref as string], `${file}: ${ref} is not a known node24 release`).toBeDefined();
        expect(comment, `${file}: ${ref}`).toBe(PINNED[ref as string]?.version);
      }
    }
  });

  it('no longer pins configure-aws-credentials at its node20 release (v5.1.1)', () => {
    for (const file of workflows)
      expect(read(file)).not.toContain('61815dcd50bd041e203e49132bacad1fd04d2708');
  });
});

describe('the write token and the concurrency groups', () => {
  const calibrate = parse(read('.github/workflows/calibrate.yml')) as { jobs: Record<string, Job> };
  const release = parse(read('.github/workflows/release.yml')) as { jobs: Record<string, Job> };

  it('gives contents: write only to the commit job, which runs no npm and none of the pull request’s code', () => {
    for (const [name, job] of [...Object.entries(calibrate.jobs), ...Object.entries(release.jobs)]) {
      const writes = typeof job.permissions === 'object' && job.permissions.contents === 'write';
      expect(writes, name).toBe(name === 'commit');
    }
    const commit = calibrate.jobs.commit as Job;
    const runs = (commit.steps ?? []).map((s) => s.run ?? '').join('\n');
    expect(runs).not.toMatch(/npm|npx|node /);
    const checkout = commit.steps?.find((s) => s.uses?.startsWith('actions/checkout@'));
    expect(checkout?.with?.ref).toBe(expr('github.event.repository.default_branch'));
  });

  it('checks out without persisting credentials wherever a job runs code (no token left in .git/config)', () => {
    for (const file of workflows) {
      for (const step of stepsOf(file).filter((s) => s.uses?.startsWith('actions/checkout@'))) {
        expect(step.with?.['persist-credentials'], `${file}: ${step.name ?? step.uses}`).toBe(false);
      }
    }
  });

  it('hands the commit token to the commit step of each composite action and to no other step', () => {
    for (const file of composites) {
      for (const step of stepsOf(file)) {
        const text = JSON.stringify(step);
        const isCommit = step.id === 'commit';
        expect(text.includes('inputs.commit-token'), `${file}: ${step.name}`).toBe(isCommit);
        if (isCommit) expect(step.env?.PUSH_TOKEN).toBe(expr('inputs.commit-token'));
      }
    }
  });

  it('runs every calibration-endpoint job and every release in per-model groups of their own, each in its own environment', () => {
    // One group per calibration endpoint: the model's own (suffix '') and each candidate's -cal-<n>.
    expect(calibrate.jobs.calibrate?.concurrency?.group).toBe(
      `scalegate-calibration-${expr('matrix.model')}${expr('matrix.suffix')}`,
    );
    expect(calibrate.jobs.compare?.concurrency?.group).toBe(`scalegate-calibration-${expr('matrix.model')}`);
    expect(release.jobs.release?.concurrency?.group).toBe(`scalegate-release-${expr('matrix.model')}`);
    expect(calibrate.jobs.calibrate?.environment).toBe('calibration');
    expect(release.jobs.release?.environment).toBe('production');
  });
});

type Concurrency = string | { group: string; 'cancel-in-progress'?: unknown } | undefined;
interface Workflow {
  concurrency?: Concurrency;
  jobs: Record<string, Omit<Job, 'concurrency'> & { concurrency?: Concurrency }>;
}
const groupOf = (c: Concurrency) =>
  c === undefined
    ? null
    : typeof c === 'string'
      ? { group: c, cancelInProgress: false as unknown }
      : { group: c.group, cancelInProgress: c['cancel-in-progress'] ?? false };
/**
 * The group with its model expression abstracted (`matrix.model` and `inputs.model` name the same
 * model; a compare candidate's `matrix.suffix` names its own calibration endpoint of that model).
 */
const groupKind = (group: string) =>
  group.replace(/\$\{\{ (matrix|inputs)\.model \}\}(\$\{\{ matrix\.suffix \}\})?/, '<model>');
const RELEASE_GROUP = 'scalegate-release-<model>';
const CALIBRATION_GROUP = 'scalegate-calibration-<model>';

/**
 * What breaks the concurrency rules. GitHub keeps one pending job per group and cancels the
 * older pending one when another queues: (1) only the release job may use the release group
 * (so nothing but a newer release can cancel a release pending its reviewers), and never cancel a
 * running one; (2) every job that acts on the calibration endpoint (environment calibration)
 * holds the calibration group, from its own or its workflow's declaration, never cancelling one
 * in progress; (3) a job never declares a group its workflow already holds (it would wait for
 * itself).
 */
function concurrencyProblems(docs: Record<string, Workflow>): string[] {
  const problems: string[] = [];
  for (const [file, doc] of Object.entries(docs)) {
    const own = groupOf(doc.concurrency);
    if (own && groupKind(own.group) === RELEASE_GROUP)
      problems.push(`${file}: the workflow holds the release group`);
    for (const [name, job] of Object.entries(doc.jobs)) {
      const mine = groupOf(job.concurrency);
      const held = mine ?? own;
      const where = `${file}:${name}`;
      const isRelease = file.endsWith('/release.yml') && name === 'release';
      if (isRelease && (held === null || groupKind(held.group) !== RELEASE_GROUP)) {
        problems.push(`${where}: a release outside the release group`);
      }
      if (!isRelease && mine && groupKind(mine.group) === RELEASE_GROUP) {
        problems.push(`${where}: uses the release group`);
      }
      if (isRelease && held?.cancelInProgress !== false) problems.push(`${where}: cancels a running release`);
      if (job.environment === 'calibration') {
        if (held === null || groupKind(held.group) !== CALIBRATION_GROUP) {
          problems.push(`${where}: acts on the calibration endpoint outside the calibration group`);
        } else if (held.cancelInProgress !== false) {
          problems.push(`${where}: cancels a calibration-endpoint job in progress`);
        }
      }
      if (own && mine && mine.group === own.group)
        problems.push(`${where}: waits for its own workflow's group`);
    }
  }
  return problems;
}

const workflowDocs = (edit: (file: string, text: string) => string = (_f, t) => t) =>
  Object.fromEntries(workflows.map((f) => [f, parse(edit(f, read(f))) as Workflow]));

describe('concurrency: a queued calibration can never cancel a pending release; a drill holds its lock throughout', () => {
  it('holds for every workflow of the repository', () => {
    expect(concurrencyProblems(workflowDocs())).toEqual([]);
  });

  it('holds the drill example’s lock at workflow level, over prepare, every shard, merge and teardown (not only during prepare)', () => {
    const drill = workflowDocs()['.github/workflows/drill-example.yml'] as Workflow;
    expect(groupOf(drill.concurrency)).toEqual({
      group: `scalegate-calibration-${expr('inputs.model')}`,
      cancelInProgress: false,
    });
    expect(Object.keys(drill.jobs).sort()).toEqual(['merge', 'prepare', 'shard', 'teardown']);
    for (const [name, job] of Object.entries(drill.jobs)) expect(job.concurrency, name).toBeUndefined();
  });

  it('catches a release sharing the calibration group, and a drill locked during prepare only (the rules are not a no-op)', () => {
    const releaseGroup = `group: scalegate-release-${expr('matrix.model')}`;
    const shared = workflowDocs((f, t) =>
      f.endsWith('/release.yml')
        ? t.replace(releaseGroup, `group: scalegate-calibration-${expr('matrix.model')}`)
        : t,
    );
    expect(concurrencyProblems(shared)).toContain(
      '.github/workflows/release.yml:release: a release outside the release group',
    );
    const prepareOnly = workflowDocs();
    const drill = prepareOnly['.github/workflows/drill-example.yml'] as Workflow;
    (drill.jobs.prepare as { concurrency?: Concurrency }).concurrency = drill.concurrency;
    delete drill.concurrency;
    expect(concurrencyProblems(prepareOnly)).toEqual([
      '.github/workflows/drill-example.yml:shard: acts on the calibration endpoint outside the calibration group',
      '.github/workflows/drill-example.yml:teardown: acts on the calibration endpoint outside the calibration group',
    ]);
  });
});

describe('calibration ends with the plan deployed and proven; a release validates again', () => {
  const calibrate = parse(read('.github/workflows/calibrate.yml')) as {
    on: { workflow_dispatch: { inputs: Record<string, { type: string; default: unknown }> } };
    jobs: Record<string, Job & { steps: Step[] & { if?: string }[] }>;
  };
  const steps = (calibrate.jobs.calibrate?.steps ?? []) as (Step & { if?: string })[];
  const index = (match: (s: Step) => boolean): number => steps.findIndex(match);

  it('after plan: deploy the plan to the calibration endpoint, validate it there, drill it, then tear down', () => {
    const plan = index((s) => s.uses === './actions/plan');
    const deploy = index((s) =>
      /deploy "\$MODEL" --calibration --candidate "\$CANDIDATE" --with-plan "\$PLAN"/.test(s.run ?? ''),
    );
    const validate = index((s) => s.uses === './actions/validate');
    const drill = index((s) => s.uses === './actions/drill');
    const teardown = index((s) =>
      /destroy "\$MODEL" --calibration --candidate "\$CANDIDATE"/.test(s.run ?? ''),
    );
    expect([plan, deploy, validate, drill, teardown].every((i) => i >= 0)).toBe(true);
    expect(plan < deploy && deploy < validate && validate < drill && drill < teardown).toBe(true);
    const planStep = steps[plan] as Step;
    expect(planStep.id).toBe('plan');
    const planPath = expr('steps.plan.outputs.artifact-path');
    expect(steps[deploy]?.env?.PLAN).toBe(planPath);
    expect(steps[validate]?.with).toMatchObject({
      endpoint: expr('env.CALIBRATION_ENDPOINT'),
      plan: planPath,
      commit: 'false',
    });
    // No push from the measuring job (no write token): the commit job commits the uploaded drill.
    expect(steps[drill]?.with).toEqual({
      model: expr('matrix.model'),
      plan: planPath,
      endpoint: expr('env.CALIBRATION_ENDPOINT'),
      commit: 'false',
      upload: 'false',
    });
    expect(steps[teardown]?.if).toBe('always()');
  });

  it('drills by default: always on a pull request, on a manual run unless drill: false', () => {
    expect(calibrate.on.workflow_dispatch.inputs.drill).toMatchObject({ type: 'boolean', default: true });
    const drill = steps.find((s) => s.uses === './actions/drill');
    // `inputs.drill` is empty on a pull request, and GitHub compares empty loosely equal to false.
    // A tuned plan is always drilled once: the drill confirms the policy chosen by simulation.
    expect(drill?.if).toBe(
      expr(
        "github.event_name != 'workflow_dispatch' || inputs.drill || steps.tune.outputs.artifact-path != ''",
      ),
    );
  });

  it('uploads every file a candidate leg wrote (measurements, tune, plan, validate, drill) under a name of its own, and commits the chosen candidate’s (two legs of one model under one name would overwrite each other’s plan)', () => {
    const upload = steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(upload?.with?.name).toBe(
      `scalegate-${expr('matrix.model')}-measured-calibrate${expr('matrix.suffix')}-${expr('github.run_attempt')}`,
    );
    for (const id of ['qmax', 'ttotal', 'tune', 'plan', 'validate', 'drill']) {
      expect(String(upload?.with?.path)).toContain(expr(`steps.${id}.outputs.written-files`));
      const step = steps.find((s) => s.id === id);
      expect(step?.with?.upload, id).toBe('false');
    }
    const compare = calibrate.jobs.compare?.steps ?? [];
    const fromLegs = compare.find((s) => s.uses?.startsWith('actions/download-artifact@'));
    expect(fromLegs?.with?.pattern).toBe(
      `scalegate-${expr('matrix.model')}-measured-calibrate*-${expr('github.run_attempt')}`,
    );
    expect(fromLegs?.with?.['merge-multiple']).toBeUndefined();
    const chosen = compare.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    const download = (calibrate.jobs.commit?.steps ?? []).find((s) =>
      s.uses?.startsWith('actions/download-artifact@'),
    );
    expect(download?.with?.name).toBe(chosen?.with?.name);
    expect(chosen?.with?.name).toBe(
      `scalegate-${expr('matrix.model')}-chosen-calibrate-${expr('github.run_attempt')}`,
    );
  });

  it("re-tunes a PR's tune-<model>.json on this run's measurements through ./actions/tune (attested and uploaded like every measuring step), and plans with it (prevents a proposed policy deployed on other measurements, or a tuned plan the gate cannot re-derive or refuses unattested)", () => {
    const pr = steps.find((s) => (s.run ?? '').includes('pr-inputs.mjs'));
    expect(pr?.id).toBe('pr');
    const input = steps.find((s) => s.id === 'tune-input');
    expect(input?.if).toBe(expr("steps.pr.outputs.tune-dir != ''"));
    expect(input?.env).toMatchObject({ TUNE_DIR: expr('steps.pr.outputs.tune-dir') });
    const tune = steps.find((s) => s.id === 'tune');
    expect(tune?.if).toBe(expr("steps.pr.outputs.tune-dir != ''"));
    expect(tune?.uses).toBe('./actions/tune');
    expect(tune?.with).toMatchObject({
      qmax: expr('steps.qmax.outputs.artifact-path'),
      ttotal: expr('steps.ttotal.outputs.artifact-path'),
      trace: expr('steps.tune-input.outputs.trace'),
      shape: expr('steps.tune-input.outputs.shape'),
      commit: 'false',
    });
    // The leg's one upload carries the tune and its attestation bundle (written-files lists both).
    expect(tune?.with?.upload).toBe('false');
    const uploads = steps.filter((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(uploads).toHaveLength(1);
    expect(String(uploads[0]?.with?.path)).toContain(expr('steps.tune.outputs.written-files'));
    const ttotal = index((s) => s.uses === './actions/ttotal');
    const at = index((s) => s.id === 'tune');
    const plan = index((s) => s.uses === './actions/plan');
    expect(ttotal < at && at < plan).toBe(true);
    expect(steps[plan]?.with?.tune).toBe(expr('steps.tune.outputs.artifact-path'));
  });

  it('releases with gate -> deploy -> validate (the production endpoint read back against the plan)', () => {
    const release = parse(read('.github/workflows/release.yml')) as { jobs: Record<string, Job> };
    const order = (release.jobs.release?.steps ?? []).map((s) =>
      s.uses === './actions/gate'
        ? 'gate'
        : s.uses === './actions/validate'
          ? 'validate'
          : /scalegate\.mjs deploy "\$MODEL"( --trusted-root "\$RUNNER_TEMP\/trusted_root\.jsonl")?$/.test(
                (s.run ?? '').trim(),
              )
            ? 'deploy'
            : null,
    );
    expect(order.filter(Boolean)).toEqual(['gate', 'deploy', 'validate']);
  });
});

describe('release-action: a version tag moves the major tag only after dist/ is proven current', () => {
  const workflow = parse(read('.github/workflows/release-action.yml')) as {
    on: Record<string, unknown>;
    jobs: Record<string, Job & { needs?: string | string[]; if?: string }>;
  };
  const runs = (job: string) => (workflow.jobs[job]?.steps ?? []).map((s) => s.run ?? '').join('\n');

  it('runs on version tags only (never on a branch, a pull request or the major tag it moves)', () => {
    expect(workflow.on).toEqual({ push: { tags: ['v*.*.*'] } });
  });

  it('checks the tag against the versions, then npm ci, npm run build and a dist/ diff, with a read-only token', () => {
    const verify = workflow.jobs.verify as Job;
    expect(verify.permissions).toEqual({ contents: 'read' });
    const text = runs('verify');
    const order = [
      'require("./package.json").version',
      'npm ci',
      'npm run build',
      'git diff --exit-code',
    ].map((s) => text.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain('git ls-files --others --exclude-standard -- dist/');
  });

  it('moves the major tag with force after verify, in the only job with a write token, which runs no npm or node', () => {
    const writers = Object.entries(workflow.jobs)
      .filter(([, job]) => typeof job.permissions === 'object' && job.permissions.contents === 'write')
      .map(([name]) => name);
    expect(writers).toEqual(['major-tag']);
    const job = workflow.jobs['major-tag'];
    expect(job?.needs).toBe('verify');
    expect(job?.if).toBe("needs.verify.outputs.prerelease == 'false'");
    const text = runs('major-tag');
    expect(text).not.toMatch(/npm|npx|node /);
    expect(text).toContain('git tag --force "$MAJOR" "$GITHUB_SHA"');
    expect(text).toContain('git push --force origin "refs/tags/$MAJOR"');
    // Never backwards: a patch to an older line leaves the major tag where it is.
    expect(text).toContain('sort -V');
  });

  it('publishes with provenance only when an NPM_TOKEN secret exists, after verify', () => {
    const job = workflow.jobs.publish as Job & { needs?: string; env?: Record<string, string> };
    expect(job.needs).toBe('verify');
    expect(job.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    expect(job.env?.NODE_AUTH_TOKEN).toBe(expr('secrets.NPM_TOKEN'));
    const publish = (job.steps ?? []).find((s) => (s.run ?? '').startsWith('npm publish')) as Step & {
      if?: string;
    };
    expect(publish.run).toContain('--provenance');
    expect(publish.if).toBe("env.NODE_AUTH_TOKEN != ''");
  });

  it('leaves the production release workflow to release.yml (no deploy here)', () => {
    expect(read('.github/workflows/release-action.yml')).not.toMatch(
      /scalegate\.mjs deploy|environment: production/,
    );
  });
});

interface FullStep extends Step {
  if?: string;
  'working-directory'?: string;
}
interface FullJob extends Omit<Job, 'steps'> {
  steps?: FullStep[];
  if?: string;
  needs?: string | string[];
}
interface FullWorkflow {
  on: Record<string, unknown>;
  jobs: Record<string, FullJob>;
}

const PR_HEAD_SHA = expr('github.event.pull_request.head.sha || github.sha');
const DEFAULT_BRANCH = expr('github.event.repository.default_branch');

/**
 * What would let a pull request's code run in a calibrate job (with the calibration role, an OIDC
 * token and the attestation permission): a job whose workspace is not the default branch, or
 * anything taken from the PR's checkout (the checkout with a `path`) other than the two allowed
 * reads: the default branch's select script run inside it, and pr-inputs.mjs handed its path.
 */
function prCodeProblems(doc: FullWorkflow): string[] {
  const problems: string[] = [];
  const on = Object.keys(doc.on);
  if (on.includes('pull_request')) problems.push('runs on pull_request (the PR’s own workflow file)');
  for (const [name, job] of Object.entries(doc.jobs)) {
    const steps = job.steps ?? [];
    const checkouts = steps.filter((s) => s.uses?.startsWith('actions/checkout@'));
    const prPaths = checkouts.filter((s) => s.with?.path !== undefined).map((s) => String(s.with?.path));
    for (const c of checkouts) {
      const isPr = c.with?.path !== undefined;
      if (!isPr && c.with?.ref !== DEFAULT_BRANCH)
        problems.push(`${name}: the workspace is checked out at ${String(c.with?.ref ?? 'the event ref')}`);
      if (isPr && c.with?.ref !== PR_HEAD_SHA)
        problems.push(`${name}: ${String(c.with?.path)} is not the PR head`);
    }
    for (const step of steps) {
      const where = `${name}: ${step.name ?? step.uses ?? step.run?.split('\n')[0]}`;
      const dir = step['working-directory'] ?? '';
      const run = step.run ?? '';
      for (const p of prPaths) {
        if (step.uses?.startsWith(`./${p}`)) problems.push(`${where}: uses an action of the PR checkout`);
        if (dir === p || dir.startsWith(`${p}/`)) {
          // Inside the PR checkout, only the default branch's select script, by absolute path.
          const calls = run.match(/\b(npm|npx|node|bash|sh|make|python3?)\b[^\n]*/g) ?? [];
          for (const call of calls) {
            if (
              !/^node "\$select" /.test(call) ||
              !run.includes('select="$GITHUB_WORKSPACE/.github/scripts/')
            )
              problems.push(`${where}: runs \`${call}\` inside ${p}`);
          }
        }
        for (const line of run.split('\n').filter((l) => l.includes(p))) {
          const allowed = [
            new RegExp(`^\\s*node \\.github/scripts/pr-inputs\\.mjs "\\$MODEL" ${p}$`),
            new RegExp(`^\\s*rm -rf -- ${p}$`),
          ];
          if (!allowed.some((re) => re.test(line)))
            problems.push(`${where}: \`${line.trim()}\` touches ${p}`);
        }
      }
      if (/\bnpm (ci|install|run)\b/.test(run) && dir !== '') problems.push(`${where}: npm in ${dir}`);
    }
  }
  return problems;
}

describe('calibrate over candidate instance types (scalegate compare)', () => {
  const doc = parse(read('.github/workflows/calibrate.yml')) as {
    jobs: Record<
      string,
      Job & {
        needs?: string[];
        if?: string;
        env?: Record<string, string>;
        strategy?: { matrix?: { include?: string } };
      }
    >;
  };
  const { calibrate, compare, commit } = doc.jobs;

  it('runs one calibrate leg per candidate of the select job, each deployed, measured and torn down on its own calibration endpoint', () => {
    expect(calibrate?.strategy?.matrix?.include).toBe(expr('fromJSON(needs.select.outputs.candidates)'));
    expect(calibrate?.env).toMatchObject({
      CANDIDATE: expr('matrix.candidate'),
      CALIBRATION_ENDPOINT: expr('matrix.calibration_endpoint'),
    });
    const runs = (calibrate?.steps ?? [])
      .map((s) => s.run ?? '')
      .filter((r) => /scalegate\.mjs (deploy|destroy)/.test(r));
    expect(runs).toHaveLength(3);
    for (const run of runs) expect(run).toContain('--calibration --candidate "$CANDIDATE"');
  });

  it('compares after every leg (also a failed one), per model, and the commit job waits for the comparison', () => {
    expect(compare?.needs).toEqual(['select', 'calibrate']);
    expect(String(compare?.if)).toMatch(/^always\(\)/);
    expect(compare?.strategy?.matrix?.include).toBe(expr('fromJSON(needs.select.outputs.models)'));
    expect(commit?.needs).toEqual(['select', 'compare']);
    const run = (compare?.steps ?? []).map((s) => s.run ?? '').join('\n');
    expect(run).toContain('node bin/scalegate.mjs compare --model "$MODEL" --plan "$RUNNER_TEMP/candidates"');
    expect(run).toContain('--markdown "$RUNNER_TEMP/compare.md"');
    expect(run).toContain('gh pr comment "$PR"');
    // No write token there: the commit job alone pushes.
    expect(compare?.permissions).toEqual({ contents: 'read', 'pull-requests': 'write', 'id-token': 'write' });
  });

  it("sorts each leg's upload into candidates/<n>/ by its name (0: the model's own; anything else is skipped)", () => {
    const step = (compare?.steps ?? []).find((s) => (s.run ?? '').includes('measured-calibrate'));
    const script = step?.run ?? '';
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-compare-sort-'));
    const uploads = join(dir, 'uploads');
    for (const name of [
      'scalegate-alpha-measured-calibrate-1',
      'scalegate-alpha-measured-calibrate-cal-2-1',
      'scalegate-alpha-measured-calibrate-cal-x-1',
    ]) {
      mkdirSync(join(uploads, name, 'attestations'), { recursive: true });
      writeFileSync(join(uploads, name, 'plan-alpha.json'), name);
      writeFileSync(join(uploads, name, 'attestations', 'plan-alpha.json.sigstore.json'), name);
    }
    const r = spawnSync('bash', ['-c', script], {
      env: { ...process.env, RUNNER_TEMP: dir, MODEL: 'alpha', ATTEMPT: '1' },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(readdirSync(join(dir, 'candidates')).sort()).toEqual(['0', '2']);
    expect(readFileSync(join(dir, 'candidates', '2', 'plan-alpha.json'), 'utf8')).toBe(
      'scalegate-alpha-measured-calibrate-cal-2-1',
    );
    expect(
      readFileSync(join(dir, 'candidates', '0', 'attestations', 'plan-alpha.json.sigstore.json'), 'utf8'),
    ).toBe('scalegate-alpha-measured-calibrate-1');
  });
});

describe('trusted measurement: calibrate runs the default branch’s code, the PR’s head only as data', () => {
  const text = read('.github/workflows/calibrate.yml');
  const doc = parse(text) as FullWorkflow;
  const calibrate = doc.jobs.calibrate as FullJob;
  const steps = calibrate.steps ?? [];
  const at = (match: (s: FullStep) => boolean) => steps.findIndex(match);

  it('runs on pull_request_target, never runs anything from the PR checkout, and checks out the default branch as the workspace', () => {
    expect(Object.keys(doc.on).sort()).toEqual(['pull_request_target', 'workflow_dispatch']);
    expect(prCodeProblems(doc)).toEqual([]);
    for (const name of ['select', 'calibrate']) {
      const paths = (doc.jobs[name]?.steps ?? [])
        .filter((s) => s.uses?.startsWith('actions/checkout@') && s.with?.path)
        .map((s) => s.with?.path);
      expect(paths, name).toEqual(['pr-head']);
    }
  });

  it('catches npm ci, node or ./actions from the PR checkout, and a PR-head workspace (the check is not a no-op)', () => {
    const edited = (edit: (t: string) => string) => prCodeProblems(parse(edit(text)) as FullWorkflow);
    expect(
      edited((t) =>
        t.replace(
          "      - name: Install (the default branch's lockfile)",
          "      - name: Install (the default branch's lockfile)\n        working-directory: pr-head",
        ),
      ),
    ).toContain("calibrate: Install (the default branch's lockfile): npm in pr-head");
    expect(edited((t) => t.replace('uses: ./actions/qmax', 'uses: ./pr-head/actions/qmax'))).toEqual([
      'calibrate: qmax: uses an action of the PR checkout',
    ]);
    expect(
      edited((t) =>
        t.replace(
          'run: node bin/scalegate.mjs deploy "$MODEL" --calibration --candidate "$CANDIDATE"\n',
          'run: node pr-head/bin/scalegate.mjs deploy "$MODEL" --calibration --candidate "$CANDIDATE"\n',
        ),
      ),
    ).toEqual([expect.stringContaining('touches pr-head')]);
    expect(
      edited((t) =>
        t.replace('node "$select" one "$MODEL"', 'node .github/scripts/select-models.mjs one "$MODEL"'),
      ),
    ).toEqual([
      expect.stringContaining('runs `node .github/scripts/select-models.mjs one "$MODEL"` inside pr-head'),
    ]);
    expect(
      edited((t) =>
        t.replace(
          `ref: ${DEFAULT_BRANCH}\n          persist-credentials: false\n      # The PR`,
          `ref: ${PR_HEAD_SHA}\n          persist-credentials: false\n      # The PR`,
        ),
      ),
    ).toEqual([expect.stringMatching(/^calibrate: the workspace is checked out at /)]);
    expect(edited((t) => t.replace('pull_request_target:', 'pull_request:'))).toContain(
      'runs on pull_request (the PR’s own workflow file)',
    );
  });

  it('takes the PR’s inputs after npm ci and removes the PR checkout before any AWS credential', () => {
    const install = at((s) => /^npm ci\b/.test(s.run ?? ''));
    const inputs = at((s) => (s.run ?? '').includes('pr-inputs.mjs'));
    const aws = at((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials@') ?? false);
    expect([install, inputs, aws].every((i) => i >= 0)).toBe(true);
    expect(install < inputs && inputs < aws).toBe(true);
    expect(steps[inputs]?.run).toContain('rm -rf -- pr-head');
  });

  it('gives the calibrate job exactly contents: read, pull-requests: write, id-token: write, attestations: write', () => {
    expect(calibrate.permissions).toEqual({
      contents: 'read',
      'pull-requests': 'write',
      'id-token': 'write',
      attestations: 'write',
    });
    expect(text).toMatch(/^ {6}attestations: write #/m);
  });

  it('measures only same-repository pull requests (forks get the notice job, no credentials)', () => {
    for (const name of ['calibrate', 'commit']) {
      expect(doc.jobs[name]?.if, name).toContain(
        'github.event.pull_request.head.repo.full_name == github.repository',
      );
    }
    expect(doc.jobs.fork?.if).toContain("github.event_name == 'pull_request_target'");
    expect(doc.jobs.fork?.permissions).toEqual({});
  });

  it('commits with the measured commit (MEASURED_SHA) and copies the attestation bundles into artifacts/attestations/', () => {
    const step = (doc.jobs.commit?.steps ?? []).find((s) => (s.run ?? '').includes('commit-artifacts.sh'));
    expect(step?.env?.MEASURED_SHA).toBe(PR_HEAD_SHA);
    expect(step?.env?.HEAD_REF).toBe(expr('github.event.pull_request.head.ref'));
    expect(step?.run).toContain('"$RUNNER_TEMP"/measured/attestations/*.sigstore.json');
    expect(step?.run).toContain('to="artifacts/attestations/$(basename "$f")"');
  });
});

/** What lets an unprotected ref reach production: a tag trigger whose jobs are not gated. */
function releaseRefProblems(doc: FullWorkflow): string[] {
  const problems: string[] = [];
  if ('release' in doc.on) problems.push('runs on a published release (any tag)');
  const push = doc.on.push as { tags?: string[]; branches?: string[] } | undefined;
  if (push?.tags) {
    for (const name of ['select', 'release']) {
      if (!(doc.jobs[name]?.if ?? '').includes("vars.SCALEGATE_RELEASE_TAGS == 'protected'"))
        problems.push(`${name}: a v* tag reaches it ungated`);
    }
  }
  if (
    !(doc.jobs.release?.if ?? '').includes(
      "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)",
    )
  )
    problems.push('release: not limited to the default branch');
  return problems;
}

describe('the release path: default branch by default, dist/ checked, attestations verified', () => {
  const text = read('.github/workflows/release.yml');
  const doc = parse(text) as FullWorkflow;
  const steps = doc.jobs.release?.steps ?? [];
  const at = (match: (s: FullStep) => boolean) => steps.findIndex(match);

  it('lets no v* tag reach production unless SCALEGATE_RELEASE_TAGS says a ruleset protects them', () => {
    expect(releaseRefProblems(doc)).toEqual([]);
    const ungated = parse(
      text.replace("    if: github.ref_type != 'tag' || vars.SCALEGATE_RELEASE_TAGS == 'protected'\n", ''),
    ) as FullWorkflow;
    expect(releaseRefProblems(ungated)).toEqual(['select: a v* tag reaches it ungated']);
    const published = parse(
      text.replace('on:\n', 'on:\n  release:\n    types: [published]\n'),
    ) as FullWorkflow;
    expect(releaseRefProblems(published)).toContain('runs on a published release (any tag)');
  });

  it('refuses a manual release started on another branch than the default, or on a tag that is not a release tag', () => {
    const check = (doc.jobs.select?.steps ?? [])[0];
    expect(check?.run).toContain('[ "$GITHUB_REF" != "refs/heads/$DEFAULT_BRANCH" ]');
    expect(check?.run).toContain('exit 2');
    expect(check?.env?.DEFAULT_BRANCH).toBe(DEFAULT_BRANCH);
    // A run by hand on some other tag is refused too: the ruleset protects release tags only.
    expect(check?.run).toContain(
      '[ "$GITHUB_REF_TYPE" = tag ] && ! [[ "$GITHUB_REF_NAME" =~ ^v[0-9]+\\.[0-9]+\\.[0-9]+ ]]',
    );
  });

  it('runs npm ci, then npm run check:dist, then fetches the trust root, then the gate, before any AWS credential', () => {
    const install = at((s) => /^npm ci\b/.test(s.run ?? ''));
    const check = at((s) => s.run === 'npm run check:dist');
    const root = at((s) => (s.run ?? '').startsWith('gh attestation trusted-root'));
    const gate = at((s) => s.uses === './actions/gate');
    const aws = at((s) => s.uses?.startsWith('aws-actions/configure-aws-credentials@') ?? false);
    expect([install, check, root, gate, aws].every((i) => i >= 0)).toBe(true);
    expect(install < check && check < root && root < gate && gate < aws).toBe(true);
    // Nothing runs dist/ before it is checked.
    for (const s of steps.slice(0, check)) {
      expect(s.uses ?? '', s.name).not.toMatch(/^\.\/actions\//);
      expect(s.run ?? '', s.name).not.toMatch(/scalegate\.mjs|dist\//);
    }
  });

  it('verifies attestations with GitHub’s trust root, never offline', () => {
    const root = steps.find((s) => (s.run ?? '').startsWith('gh attestation trusted-root'));
    expect(root?.run).toBe('gh attestation trusted-root > "$RUNNER_TEMP/trusted_root.jsonl"');
    expect(root?.env?.GH_TOKEN).toBe(expr('github.token'));
    const gate = steps.find((s) => s.uses === './actions/gate');
    expect(gate?.with?.['trusted-root']).toBe(`${expr('runner.temp')}/trusted_root.jsonl`);
    // The synth gate of the deploy verifies them again, with the same root.
    const deploy = steps.find((s) => /scalegate\.mjs deploy /.test(s.run ?? ''));
    expect(deploy?.run).toContain('--trusted-root "$RUNNER_TEMP/trusted_root.jsonl"');
    // Neither the CLI flag nor an action input: the trust root always comes from GitHub here.
    expect(text).not.toMatch(/--offline|^\s+offline:/m);
  });
});

describe('ownership: CODEOWNERS covers what runs, deploys and is trusted', () => {
  const owners = read('.github/CODEOWNERS')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => l.trim().split(/\s+/));

  it.each(['/dist/', '/.github/', '/infra/', '/artifacts/', '/scalegate.config.json', '/actions/', '/src/'])(
    '%s has an owner',
    (path) => {
      const line = owners.find(([p]) => p === path);
      expect(line?.slice(1)).toEqual(['@your-org/scalegate-owners']);
    },
  );
});
