/**
 * The action attests what a measuring step writes. @actions/attest reaches Fulcio, Rekor and
 * GitHub's attestations API at fixed https addresses (public-good or GitHub's instance), which no
 * loopback server can stand in for; so the step runs here in-process with an injected signer, the
 * offline test CA (test/helpers/sigstore-ca.ts) signing as calibrate.yml would be signed, and the
 * bundles it writes must pass the same verifier the release gate runs. The refusals are run as the
 * runner runs the step (a fresh process, from src).
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shouldAttest } from '../../src/action/attest.js';
import { runMain } from '../../src/action/run.js';
import { bundleFileFor } from '../../src/model/index.js';
import { parseTrustedRoots, verifyAttestation } from '../../src/plan/attestation.js';
import { createTestCa, type SignerClaims } from '../helpers/sigstore-ca.js';
import { makeWorkspace, parseFileCommands, runStep } from './run-action.js';

const CALIBRATE: SignerClaims = {
  repository: 'acme/speech',
  workflow: '.github/workflows/calibrate.yml',
  ref: 'refs/heads/main',
};
const OIDC = {
  ACTIONS_ID_TOKEN_REQUEST_URL: 'http://127.0.0.1:9/token',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'x',
};

describe('shouldAttest', () => {
  it('attests the measuring steps when the job can get an OIDC token (auto), never the gate or with false', () => {
    expect(shouldAttest('auto', 'plan', OIDC)).toBe(true);
    expect(shouldAttest('auto', 'plan', {})).toBe(false);
    expect(shouldAttest('false', 'qmax', OIDC)).toBe(false);
    expect(shouldAttest('true', 'gate', {})).toBe(false);
  });

  it('refuses attest: true without an OIDC token, naming the input and the permissions (a silent skip would ship unattested proofs)', () => {
    expect(() => shouldAttest('true', 'qmax', {})).toThrow(
      /permissions: id-token: write, attestations: write/,
    );
    try {
      shouldAttest('true', 'qmax', {});
    } catch (e) {
      expect((e as { messageFor(s: string): string }).messageFor('action')).toMatch(
        /^input attest \(true\): /,
      );
    }
  });
});

describe('the plan and tune steps with attest (in-process, the test CA signing)', () => {
  const saved: Record<string, string | undefined> = {};
  const keys = ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY'] as const;
  let cwd = '';
  beforeEach(() => {
    cwd = process.cwd();
    for (const k of keys) saved[k] = process.env[k];
  });
  afterEach(() => {
    process.chdir(cwd);
    for (const k of keys) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  /** A workspace, the runner's file commands and the test CA, the step running in the workspace. */
  async function prepare() {
    const ca = await createTestCa();
    const workspace = makeWorkspace();
    const files = mkdtempSync(join(tmpdir(), 'scalegate-runner-'));
    for (const k of keys) {
      process.env[k] = join(files, k);
      writeFileSync(join(files, k), '');
    }
    process.chdir(workspace);
    return { ca, workspace, files, signed: [] as string[] };
  }

  it('writes artifacts/attestations/plan-<model>.json.sigstore.json, lists it in written-files, and the gate verifier accepts it', async () => {
    const { ca, workspace, files, signed } = await prepare();
    const status = await runMain(
      {
        ...OIDC,
        GITHUB_WORKSPACE: workspace,
        GITHUB_REPOSITORY: 'acme/speech',
        GITHUB_EVENT_NAME: 'workflow_dispatch',
        GITHUB_STEP_SUMMARY: join(files, 'GITHUB_STEP_SUMMARY'),
        INPUT_COMMAND: 'plan',
        INPUT_MODEL: 'kokoro-82m',
        'INPUT_ALLOW-LOWER-BOUND': 'true',
        INPUT_COMMENT: 'false',
      },
      {
        attest: async (subject) => {
          signed.push(subject.name);
          return ca.attest([subject], CALIBRATE);
        },
      },
    );
    expect(status).toBe(0);
    expect(signed).toEqual(['plan-kokoro-82m.json']);
    const outputs = parseFileCommands(readFileSync(join(files, 'GITHUB_OUTPUT'), 'utf8'));
    const plan = join('artifacts', 'plan-kokoro-82m.json');
    expect(outputs['written-files']?.split('\n')).toEqual([plan, bundleFileFor(plan)]);
    const verdict = verifyAttestation({
      file: plan,
      bytes: readFileSync(join(workspace, plan)),
      bundle: JSON.parse(readFileSync(join(workspace, bundleFileFor(plan)), 'utf8')),
      trust: parseTrustedRoots(JSON.stringify(ca.trustedRoot), 'test-root.json'),
      expected: {
        repository: 'acme/speech',
        signerWorkflow: '.github/workflows/calibrate.yml',
        ref: 'refs/heads/main',
      },
    });
    expect(verdict).toEqual({
      ok: true,
      signer: 'https://github.com/acme/speech/.github/workflows/calibrate.yml@refs/heads/main',
    });
  });

  it('attests the tune artifact and its chart, so the release gate can take the tune a plan was derived from (prevents a tuned plan refused as unattested)', async () => {
    const { ca, workspace, files, signed } = await prepare();
    const status = await runMain(
      {
        ...OIDC,
        GITHUB_WORKSPACE: workspace,
        GITHUB_REPOSITORY: 'acme/speech',
        GITHUB_EVENT_NAME: 'workflow_dispatch',
        GITHUB_STEP_SUMMARY: join(files, 'GITHUB_STEP_SUMMARY'),
        INPUT_COMMAND: 'tune',
        INPUT_MODEL: 'kokoro-82m',
        INPUT_QMAX: 'artifacts/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json',
        INPUT_TTOTAL: 'artifacts/ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json',
        INPUT_SHAPE: 'step:base=5,x=3,at_s=300,duration_s=900',
        'INPUT_MAX-CANDIDATES': '4',
        INPUT_COMMENT: 'false',
      },
      {
        attest: async (subject) => {
          signed.push(subject.name);
          return ca.attest([subject], CALIBRATE);
        },
      },
    );
    expect(signed).toEqual(['tune-kokoro-82m.json', 'tune-kokoro-82m.svg']);
    const outputs = parseFileCommands(readFileSync(join(files, 'GITHUB_OUTPUT'), 'utf8'));
    const tune = join('artifacts', 'tune-kokoro-82m.json');
    expect(outputs['artifact-path']).toBe(tune);
    expect(outputs['written-files']?.split('\n')).toContain(bundleFileFor(tune));
    expect(existsSync(join(workspace, bundleFileFor(tune)))).toBe(true);
    // The step's exit code is the tune's own: 0 when the chosen candidate holds, 1 when none does.
    const artifact = JSON.parse(readFileSync(join(workspace, tune), 'utf8')) as { chosen_holds: boolean };
    expect(status).toBe(artifact.chosen_holds ? 0 : 1);
  });
});

describe('the step as the runner runs it (from src)', () => {
  it('refuses attest: true without id-token permission before measuring anything (exit 2, nothing written)', async () => {
    const workspace = makeWorkspace();
    const run = await runStep({
      entry: 'main',
      fromSource: true,
      workspace,
      eventName: 'push',
      inputs: {
        command: 'plan',
        model: 'kokoro-82m',
        'allow-lower-bound': 'true',
        comment: 'false',
        attest: 'true',
      },
    });
    expect(run.status, run.stdout + run.stderr).toBe(2);
    expect(run.stdout).toContain('input attest (true): this job cannot request an OIDC token');
    expect(existsSync(join(workspace, 'artifacts', 'plan-kokoro-82m.json'))).toBe(false);
  });

  it('with attest: auto and no OIDC token, writes the plan unattested (no bundle) and says nothing is wrong', async () => {
    const workspace = makeWorkspace();
    const run = await runStep({
      entry: 'main',
      fromSource: true,
      workspace,
      eventName: 'push',
      inputs: { command: 'plan', model: 'kokoro-82m', 'allow-lower-bound': 'true', comment: 'false' },
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.outputs['written-files']).toBe('artifacts/plan-kokoro-82m.json');
    expect(existsSync(join(workspace, 'artifacts', 'attestations'))).toBe(false);
  });
});
