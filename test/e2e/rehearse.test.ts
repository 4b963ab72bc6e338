/**
 * The proof that the parts fit: the whole chain (`scalegate rehearse --quick`) on the local
 * SageMaker with the real reference TTS container, asserting on the artifacts it writes.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  REHEARSAL_PROFILES,
  REHEARSAL_TIME_SCALE,
  type RehearsalResult,
  runRehearse,
} from '../../src/commands/rehearse.js';
import { readConfigFile } from '../../src/model/config.js';
import { driftFileName, planFileName, readArtifact, validateFileName } from '../../src/model/index.js';
import { configFile } from '../helpers/anchor.js';

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('scalegate rehearse --quick (the whole chain on the local SageMaker)', () => {
  const outDir = mkdtempSync(join(tmpdir(), 'scalegate-rehearse-'));
  const model = 'reference-tts';
  let result: RehearsalResult;
  let exitCode: number;
  let summary: string;
  const progress: string[] = [];

  beforeAll(async () => {
    const config = readConfigFile(configFile);
    const run = await runRehearse(
      {
        config,
        configFile,
        modelName: model,
        model: config.models[model] as NonNullable<(typeof config.models)[string]>,
        outDir,
        quick: true,
      },
      {
        version: 'test',
        progress: (event) => {
          if (event.type === 'log') progress.push(event.line);
        },
      },
    );
    result = run.artifact as RehearsalResult;
    exitCode = run.exitCode;
    summary = run.report;
  }, 600_000);

  it('completes every step, each with exit 0 (a broken seam between commands fails here)', () => {
    expect(result.failed, progress.join('\n')).toBeNull();
    expect(exitCode).toBe(0);
    expect(result.steps.map((s) => [s.step, s.exitCode])).toEqual([
      ['local-sagemaker', 0],
      ['drift', 0],
      ['qmax', 0],
      ['ttotal', 0],
      ['plan', 0],
      ['apply', 0],
      ['validate', 0],
    ]);
    for (const step of ['local-sagemaker', 'drift', 'qmax', 'ttotal', 'plan', 'apply', 'validate']) {
      expect(summary).toMatch(new RegExp(`\\n  ${step} +[\\d.]+ s  exit 0\\n`));
    }
  });

  it('starts from a clean preflight (a frozen or drifted endpoint would taint the measurement)', () => {
    expect(readArtifact('drift', join(outDir, driftFileName(model))).verdict).toBe('preflight-ok');
  });

  it('measures a bracketed Q_max on the real container, with the CloudWatch ratio joined', () => {
    const qmax = result.qmax;
    expect(qmax?.q_max_bracketed).toBe(true);
    expect(qmax?.q_max).toBeGreaterThan(0);
    expect(qmax?.fingerprint.region).toBe('local');
    expect(qmax?.steps.some((s) => s.cw_ratio !== null)).toBe(true);
  });

  it('times a scale-out no shorter than the provisioning delay, every stage up to traffic_recovered (each instance owns its emulated device, so the second one restores latency)', () => {
    const t = result.ttotal;
    expect(t?.t_total_s).toBeGreaterThanOrEqual(REHEARSAL_PROFILES.quick.provisionDelayS);
    expect(t?.timeline.map((entry) => entry.stage)).toEqual(
      expect.arrayContaining(['desired_set', 'instance_logging', 'ready', 'in_service', 'traffic_recovered']),
    );
    expect(t?.missing_stages).toEqual([]);
    expect(t?.t_total_end_stage).toBe('traffic_recovered');
  });

  it('measures on the default emulated device and says so in the fingerprint (never pairs with a real accelerator)', () => {
    const env = result.qmax?.fingerprint.container_env ?? {};
    expect(JSON.parse(env.DEVICE_PROFILE as string)).toMatchObject({ lanes: 1 });
    expect(env.DEVICE_TIME_SCALE).toBe(String(REHEARSAL_TIME_SCALE));
    expect(result.ttotal?.fingerprint.container_env).toEqual(env);
  });

  it('derives the plan from exactly those two artifacts (run ids match), T_total measured (not a lower bound) and labelled so in every output', () => {
    const plan = readArtifact('plan', join(outDir, planFileName(model)));
    expect(plan.measured.t_total_origin).toBe('measured');
    // No policy was deployed when ttotal ran: its lag is the 60 s bound, never a measurement.
    expect(plan.measured.policy_lag_origin).toBe('bound');
    expect(plan.findings.find((f) => f.name === 'provision_stage')?.detail).not.toMatch(/lower bound/i);
    const comment = readFileSync(join(outDir, 'comment.md'), 'utf8');
    // One scale-out (rehearse runs ttotal once): measured, and said to be a single observation.
    expect(comment).toMatch(/\| T\\_total \(measured, single observation\) +\| [\d.]+ s +\|/);
    expect(comment).toMatch(/\| policy lag \(bound, not measured\) +\| 60 s +\|/);
    expect(summary).toMatch(
      /from T_total \(measured, single observation\) [\d.]+ s, policy lag \(bound, not measured\) 60\.0 s/,
    );
    for (const text of [comment, summary]) expect(text).not.toContain('LOWER BOUND');
    expect(plan.inputs.qmax.run_id).toBe(result.qmax?.run_id);
    expect(plan.inputs.ttotal?.run_id).toBe(result.ttotal?.run_id);
    expect(plan.deployable.scaling_target_value).not.toBeNull();
  });

  it('validates clean after applying the plan (the deployed policy equals the plan)', () => {
    const validate = readArtifact('validate', join(outDir, validateFileName(model)));
    expect(validate.verdict).toBe('clean');
    expect(validate.rows.every((row) => row.verdict === 'match')).toBe(true);
  });

  it('writes the PR comment preview and the SVG chart', () => {
    const comment = readFileSync(join(outDir, 'comment.md'), 'utf8');
    expect(comment).toContain('xychart-beta');
    expect(existsSync(join(outDir, `ttfab-${model}.svg`))).toBe(true);
    expect(readFileSync(join(outDir, `ttfab-${model}.svg`), 'utf8')).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
  });

  it('leaves no container process behind', () => {
    expect(result.containerPids.length).toBeGreaterThanOrEqual(2);
    expect(result.containerPids.filter(isAlive)).toEqual([]);
  });
});
