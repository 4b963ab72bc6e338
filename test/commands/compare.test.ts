import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompare } from '../../src/commands/compare.js';
import { compareArtifactSchema, readArtifact } from '../../src/model/index.js';
import { renderCompareMarkdown } from '../../src/report/compare-text.js';
import { configFile } from '../helpers/anchor.js';
import { runCli } from '../helpers/cli.js';
import { candidateModel, candidatePlan, MODEL } from './compare-fixtures.js';
import { type Emulator, startEmulator, workspace } from './local-apply-fixtures.js';

// The local SageMaker answers Service Quotas for its instance type (ml.g5.xlarge, quota 4) and
// ListEndpoints with its one endpoint, which is not one of the model's (so its instance counts).
let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ endpointName: 'another-team-endpoint', quota: 4 });
});
afterAll(async () => {
  await emulator?.close();
});

const deps = () => ({
  clients: emulator.clients,
  version: 'test',
  clock: () => new Date('2026-01-02T03:04:05Z'),
});

/** Three candidates: g5 (own type) $9/1M, g6 $6/1M, g4dn $4/1M; each holding unless edited. */
function threeCandidates(
  dir: string,
  edits: { g4dn?: Parameters<typeof candidatePlan>[2]['edit']; g5Peak?: number } = {},
) {
  return [
    candidatePlan(dir, 'cand-0', {
      instanceType: 'ml.g5.xlarge',
      hourly: 1.41,
      usdPerM: 9,
      peakInstances: edits.g5Peak,
    }),
    candidatePlan(dir, 'cand-1', { instanceType: 'ml.g6.xlarge', hourly: 0.98, usdPerM: 6 }),
    candidatePlan(dir, 'cand-2', {
      instanceType: 'ml.g4dn.xlarge',
      containerEnv: { DEVICE_LANES: '2' },
      hourly: 0.74,
      usdPerM: 4,
      edit: edits.g4dn,
    }),
  ];
}

describe('scalegate compare', () => {
  it('chooses the cheapest candidate per 1M characters among those holding both SLOs (a cheaper one that fails its policy is ranked out)', async () => {
    const dir = workspace('compare');
    threeCandidates(dir, {
      g4dn: (plan) => {
        const chosen = plan.policy?.candidates.find((c) => c.metric === plan.policy?.chosen_metric);
        if (chosen) chosen.holds = false;
      },
    });
    const result = await runCompare(
      { modelName: MODEL, model: candidateModel(), planFiles: [dir], artifactsDir: join(dir, 'out') },
      deps(),
    );
    expect(result.exitCode).toBe(0);
    const a = compareArtifactSchema.parse(result.artifact);
    expect(a.candidates.map((c) => [c.label, c.instance_type, c.holds, c.rank])).toEqual([
      ['candidate 0', 'ml.g5.xlarge', true, 2],
      ['candidate 1', 'ml.g6.xlarge', true, 1],
      ['candidate 2', 'ml.g4dn.xlarge', false, null],
    ]);
    expect(a.chosen?.label).toBe('candidate 1');
    expect(a.chosen?.fingerprint.instance_type).toBe('ml.g6.xlarge');
    // Every figure with its provenance; $/h at peak is the price x the plan's peak fleet.
    const g6 = a.candidates[1];
    expect(g6?.usd_per_hour_at_peak).toEqual({ value: 2.94, origin: 'computed' });
    expect(g6?.q_max).toEqual({ value: 50, origin: 'measured' });
    expect(g6?.usd_per_million_characters_target).toEqual({ value: 6, origin: 'computed' });
    expect(g6?.usd_per_million_characters_surge_safe).toEqual({ value: 7.5, origin: 'computed' });
    // No goodput lambda_max in the plan: the margin is 1 - throughput share of the chosen policy.
    expect(g6?.slo_margin.value).toBeCloseTo(1 - 0.686829, 4);
    expect(g6?.slo_margin_method).toMatch(/highest throughput the qmax ladder measured/);
    // The chosen plan is copied byte for byte to the committed plan path.
    const committed = join(dir, 'out', `plan-${MODEL}.json`);
    expect(readFileSync(committed, 'utf8')).toBe(
      readFileSync(join(dir, 'cand-1', `plan-${MODEL}.json`), 'utf8'),
    );
    expect(result.written).toEqual([
      join(dir, 'out', `compare-${MODEL}.json`),
      join(dir, 'out', `compare-${MODEL}.svg`),
      committed,
    ]);
    expect(readArtifact('compare', join(dir, 'out', `compare-${MODEL}.json`)).chosen?.run_id).toBe(
      'run-cand-1',
    );
    // The release deploys the config's instance type: the finding says what to change.
    expect(a.findings.map((f) => f.name)).toEqual(['config: instance type']);
    expect(result.report).toMatch(
      /chosen: candidate 1 \(ml\.g6\.xlarge\): \$7\.50 per 1M characters at the surge-safe load \(computed; \$6\.00 at the target\)/,
    );
    expect(result.report).toMatch(/Q_max measured/);
    expect(result.report).toMatch(/candidate 2: the policy does not hold/);
    const svg = readFileSync(join(dir, 'out', `compare-${MODEL}.svg`), 'utf8');
    expect(svg).toMatch(/<circle class="chosen"/);
    expect(svg).toMatch(/class="candidate fails"/);
    expect(renderCompareMarkdown(a)).toMatch(/\| \*\*candidate 1\*\* \(chosen\) \| ml\.g6\.xlarge \|/);
  });

  it('ranks but never chooses a candidate whose Service Quotas cannot hold its peak, with a finding naming the quota', async () => {
    const dir = workspace('compare-quota');
    // g5 is the cheapest here, but needs 4 at peak while another endpoint holds 1 of the quota's 4.
    candidatePlan(dir, 'cand-0', {
      instanceType: 'ml.g5.xlarge',
      hourly: 1.41,
      usdPerM: 3,
      peakInstances: 4,
    });
    candidatePlan(dir, 'cand-1', { instanceType: 'ml.g6.xlarge', hourly: 0.98, usdPerM: 6 });
    const result = await runCompare(
      { modelName: MODEL, model: candidateModel(), planFiles: [dir], artifactsDir: join(dir, 'out') },
      deps(),
    );
    const a = compareArtifactSchema.parse(result.artifact);
    expect(result.exitCode).toBe(0);
    const g5 = a.candidates[0];
    expect(g5?.quota).toMatchObject({
      quota_name: 'ml.g5.xlarge for endpoint usage',
      quota_value: 4,
      instances_elsewhere: 1,
      needed: 4,
      holds: false,
    });
    expect(g5?.holds).toBe(true);
    expect(g5?.choosable).toBe(false);
    expect(a.chosen?.label).toBe('candidate 1');
    const quota = a.findings.find((f) => f.name === 'quota: ml.g5.xlarge');
    expect(quota?.detail).toMatch(/"ml\.g5\.xlarge for endpoint usage" is 4/);
    expect(quota?.fix).toMatch(/at least 5/);
    // ml.g6.xlarge has no quota in this account's Service Quotas: not checked, said so.
    expect(a.candidates[1]?.quota.holds).toBeNull();
    expect(result.report).toMatch(
      /candidate 1: not checked its peak of 3: Service Quotas has no "ml\.g6\.xlarge for endpoint usage" quota/,
    );
  });

  it('exits 1 and copies no plan when no candidate holds (a stop verdict, a failed continuity)', async () => {
    const dir = workspace('compare-none');
    candidatePlan(dir, 'cand-0', {
      instanceType: 'ml.g5.xlarge',
      hourly: 1.41,
      usdPerM: 9,
      edit: (plan) => {
        plan.verdict = 'stop';
        plan.findings.push({
          name: 'continuity_slo',
          verdict: 'stop',
          detail: 'stall p95 over the SLO',
          fix: null,
        });
      },
    });
    candidatePlan(dir, 'cand-1', {
      instanceType: 'ml.g6.xlarge',
      hourly: 0.98,
      usdPerM: 6,
      edit: (plan) => {
        plan.verdict = 'stop';
      },
    });
    const result = await runCompare(
      { modelName: MODEL, model: candidateModel(), planFiles: [dir], artifactsDir: join(dir, 'out') },
      deps(),
    );
    expect(result.exitCode).toBe(1);
    const a = compareArtifactSchema.parse(result.artifact);
    expect(a.chosen).toBeNull();
    expect(a.candidates[0]?.continuity).toBe('failed');
    expect(a.candidates[1]?.continuity).toBe('not judged');
    expect(a.findings.map((f) => f.name)).toEqual(['no candidate']);
    expect(existsSync(join(dir, 'out', `plan-${MODEL}.json`))).toBe(false);
    expect(result.report).toMatch(/NO CANDIDATE CAN BE CHOSEN/);
  });
});

describe('scalegate compare refuses (exit 2, naming the file and the fix)', () => {
  const refused = async (planArg: string, ...parts: RegExp[]) => {
    const run = await runCli(['compare', '--config', configFile, '--model', MODEL, '--plan', planArg]);
    expect(run.exitCode).toBe(2);
    for (const part of parts) expect(run.stderr).toMatch(part);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  };

  it('a plan of another model', async () => {
    const dir = workspace('compare-other');
    const file = candidatePlan(dir, 'x', {
      instanceType: 'ml.g5.xlarge',
      hourly: 1,
      usdPerM: 1,
      edit: (p) => {
        p.model_name = 'other-model';
      },
    });
    await refused(
      file,
      /is a plan of model other-model, not kokoro-82m/,
      new RegExp(file.replaceAll('.', '\\.')),
    );
  });

  it('two plans of one fingerprint', async () => {
    const dir = workspace('compare-dup');
    const a = candidatePlan(dir, 'a', { instanceType: 'ml.g5.xlarge', hourly: 1, usdPerM: 1 });
    const b = candidatePlan(dir, 'b', { instanceType: 'ml.g5.xlarge', hourly: 1, usdPerM: 2 });
    await refused(`${a},${b}`, /have the same fingerprint \(ml\.g5\.xlarge\)/, /Drop one of them/);
  });

  it('a plan without a cost block', async () => {
    const dir = workspace('compare-nocost');
    const file = candidatePlan(dir, 'x', {
      instanceType: 'ml.g5.xlarge',
      hourly: 1,
      usdPerM: 1,
      edit: (p) => {
        p.cost = undefined;
      },
    });
    await refused(file, /has no cost block: make it again with this scalegate's `scalegate plan`/);
  });
});
