import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type PlanArtifact, readArtifact } from '../../src/model/index.js';
import { ANCHOR_SHA256, anchorQmaxFile, anchorTtotalFile, configFile, repoRoot } from '../helpers/anchor.js';
import { runCli } from '../helpers/cli.js';

describe('plan from the published Kokoro-82M measurements', () => {
  let plan: PlanArtifact;
  let run: Awaited<ReturnType<typeof runCli>>;
  let out: string;

  beforeAll(async () => {
    out = join(mkdtempSync(join(tmpdir(), 'scalegate-plan-')), 'plan.json');
    run = await runCli([
      'plan',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--qmax',
      anchorQmaxFile,
      '--ttotal',
      anchorTtotalFile,
      '--peak-rps',
      '5000',
      '--trough-rps',
      '10',
      '--surge-ratio',
      '1.25',
      '--slo-ms',
      '3000',
      '--out',
      out,
    ]);
    plan = readArtifact('plan', out);
  });

  it('reproduces the published thresholds as the seed rule row (a formula regression would change them)', () => {
    const seed = plan.policy?.seed_rule;
    expect(seed?.target_value).toBe(37.5);
    expect(seed?.scale_in_threshold).toBe(25.0);
    expect(plan.deployable.queue_max_depth).toBe(50);
    expect(plan.derived.w_max_s).toBe(2.934);
    expect(plan.deployable.scale_out_cooldown_s).toBe(30);
    expect(plan.deployable.scale_in_cooldown_s).toBe(960);
    expect(plan.derived.min_safe_instances).toBe(3);
    expect(plan.measured.cw_ratio).toBe(1);
  });

  it('deploys the surge-safe target in the per-period maximum in flight, not the closed-loop 37.5 (a target in closed-loop concurrency overflows this serial device without any surge)', () => {
    expect(plan.chosen.policy_rule).toBe('surge-safe');
    expect(plan.deployable.scaling_metric).toBe('ConcurrentRequestsPerModel');
    const chosen = plan.policy?.candidates.find((c) => c.metric === plan.policy?.chosen_metric);
    expect(chosen?.lambda_safe_rps).toBeGreaterThan(11.5);
    expect(chosen?.lambda_safe_rps).toBeLessThan(13);
    expect(chosen?.surge_overflow_probability).toBeLessThanOrEqual(0.05);
    expect(plan.deployable.scaling_target_value).toBe(chosen?.target_value);
    expect(plan.deployable.scaling_target_value).toBeGreaterThanOrEqual(4);
    expect(plan.deployable.scaling_target_value).toBeLessThanOrEqual(9);
    expect(plan.derived.lambda_safe_rps).toBe(chosen?.lambda_safe_rps);
    expect(plan.policy?.seed_rule.holds).toBe(false);
    expect(plan.policy?.reason).toContain('a serial device: concurrency above 1 adds no throughput');
    expect(run.stdout).toContain('closed-loop rule (seed)');
  });

  it('sizes the fleet from lambda_safe, not the published 9 instances nor the seed 280 (concurrency is not throughput)', () => {
    expect(plan.derived.x_target_rps).toBeCloseTo(17.8875, 4);
    expect(plan.policy?.seed_rule.peak_instances).toBe(280);
    const lambda = plan.derived.lambda_safe_rps as number;
    expect(plan.deployable.max_instances).toBe(Math.ceil(5000 / lambda));
    expect(plan.deployable.min_instances).toBe(1);
    expect(plan.derived.naive_peak_instances).toBe(9);
  });

  it('raises exactly qmax_decision, scale_in_safety and fleet_sizing: surge_survival holds, verdict warn (3), exit 0', () => {
    const warned = plan.findings.filter((f) => f.verdict === 'warn').map((f) => f.name);
    expect(warned).toEqual(['qmax_decision', 'scale_in_safety', 'fleet_sizing']);
    expect(plan.findings.find((f) => f.name === 'surge_survival')?.verdict).toBe('ok');
    expect(plan.verdict).toBe('warn');
    expect(plan.warn_count).toBe(3);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('scalegate plan kokoro-82m: warn (3)');
  });

  it('labels the legacy Q_max a point estimate, never "measured, bracketed": its rung passed on p95 without a valid interval (qmax_not_interval_decided)', () => {
    expect(plan.measured.q_max_interval_decided).toBe(false);
    expect(plan.measured.q_max_provenance).toMatch(/^POINT ESTIMATE \(legacy rung/);
    expect(plan.measured.q_max_provenance).not.toContain('measured');
    const finding = plan.findings.find((f) => f.name === 'qmax_decision');
    expect(finding?.verdict).toBe('warn');
    expect(finding?.detail).toContain('qmax_not_interval_decided');
    expect(run.stdout).toMatch(/Q_max +50 in flight \(POINT ESTIMATE/);
  });

  it('takes the single T_total observation as measured, says so, and has no T_plan upper bound for the band', () => {
    expect(plan.measured.t_total_origin).toBe('measured');
    expect(plan.measured.t_total_provenance).toBe('measured, single observation');
    expect(run.stdout).toContain('T_total (measured, single observation)');
    const band = plan.derived.surge_sensitivity;
    expect(band?.nominal).toBe(plan.derived.surge_overflow_probability);
    expect(band?.items.find((i) => i.vary === 't_plan_high')?.probability).toBeNull();
    expect(band?.items.find((i) => i.vary === 't_plan_high')?.used).toContain('single observation');
    expect(plan.derived.x_target_origin).toBe('interpolated');
  });

  it('computes the seed rule surge exactly and, deployed with --policy-rule seed, stops naming the values that hold (a predicted overflow is never deployable)', async () => {
    // Exact uniformization: 1.0000 with the 1.25x surge and 0.9976 with no surge at all (k = 1):
    // at the seed target this serial server runs at 99.8 % of its measured throughput.
    expect(plan.policy?.seed_rule.surge_overflow_probability).toBe(1);
    expect(plan.policy?.seed_rule.baseline_overflow_probability).toBe(0.9976);
    const seedOut = join(mkdtempSync(join(tmpdir(), 'scalegate-plan-')), 'plan.json');
    const seedRun = await runCli([
      'plan',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--qmax',
      anchorQmaxFile,
      '--ttotal',
      anchorTtotalFile,
      '--policy-rule',
      'seed',
      '--out',
      seedOut,
    ]);
    const seedPlan = readArtifact('plan', seedOut);
    expect(seedRun.exitCode).toBe(1);
    expect(seedPlan.verdict).toBe('stop');
    expect(seedPlan.deployable.scaling_target_value).toBe(37.5);
    expect(seedPlan.derived.surge_overflow_probability).toBe(1);
    expect(seedPlan.derived.surge_baseline_overflow_probability).toBe(0.9976);
    expect(seedPlan.derived.surge_method).toBe('uniformization');
    expect(seedPlan.derived.surge_start_in_flight).toBe(38);
    const surge = seedPlan.findings.find((f) => f.name === 'surge_survival');
    expect(surge?.verdict).toBe('stop');
    expect(surge?.detail).toContain('runs at 99.8 % of its measured throughput');
    expect(surge?.detail).toContain(
      'with probability 99.8 % with no surge (k = 1) and 100.0 % with a 1.25x surge',
    );
    expect(surge?.detail).toContain('the target leaves no throughput headroom');
    expect(surge?.detail).toContain(
      'fills from 38 in flight (C_scale_max 37.5 rounded) to Q_max 50 in 2.7 s',
    );
    expect(surge?.fix).toContain('deploy the surge-safe policy instead');
    expect(surge?.fix).toContain(`target ${plan.deployable.scaling_target_value}`);
  });

  it('prints every finding in the fixed order so none can silently disappear', () => {
    expect(plan.findings.map((f) => f.name)).toEqual([
      'measurement_trust',
      'measurement_vantage',
      'qmax_decision',
      'curve_repeatability',
      'slo_budget',
      'invocation_ceiling',
      'queue_depth',
      'threshold_units',
      'surge_survival',
      'scale_in_safety',
      'fleet_sizing',
      'fleet_cost',
      'provision_stage',
      'quota_headroom',
      'open_loop_headroom',
    ]);
    for (const finding of plan.findings) expect(run.stdout).toContain(`${finding.name}: ${finding.detail}`);
    expect(plan.findings.find((f) => f.name === 'curve_repeatability')?.verdict).toBe('suppressed');
  });

  it('records the inputs it was derived from, so the gate can check them', () => {
    expect(plan.inputs.qmax.run_id).toBe('b8fa8ef48043');
    expect(plan.inputs.ttotal?.run_id).toBe('2cd00ae01f84');
    expect(plan.inputs.qmax.slug).toBe('g5xlarge-8b1b96bc');
    expect(plan.fingerprint.image_digest).toBe(
      '8b1b96bc4dc0b30ddd84d8fe37af7c490937333c44a9f8f7d77b918c3d7eaced',
    );
    expect(plan.measured.t_total_origin).toBe('measured');
    expect(plan.derived.t_plan_s).toBeCloseTo(320.248496, 6);
  });

  it('reports the stated T_total as stated, never as measured', async () => {
    const statedOut = join(mkdtempSync(join(tmpdir(), 'scalegate-plan-')), 'plan.json');
    const stated = await runCli([
      'plan',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--qmax',
      anchorQmaxFile,
      '--assume-t-total',
      '260',
      '--out',
      statedOut,
    ]);
    expect(stated.exitCode).toBe(0);
    expect(stated.stdout).toContain('T_total (STATED, not measured)');
    const statedPlan = readArtifact('plan', statedOut);
    expect(statedPlan.measured.t_total_origin).toBe('stated');
    expect(statedPlan.findings.find((f) => f.name === 'provision_stage')?.verdict).toBe('warn');
  });

  it('reads the committed anchor files byte-identical to the published ones (no silent local edits; a missing file fails)', () => {
    const files = [anchorQmaxFile, anchorTtotalFile];
    expect(files.map((f) => f.slice(f.lastIndexOf('/') + 1)).sort()).toEqual(
      Object.keys(ANCHOR_SHA256).sort(),
    );
    for (const file of files) {
      expect(
        existsSync(file),
        `${file} is missing: restore it from git (the published anchor measurement)`,
      ).toBe(true);
      const digest = createHash('sha256').update(readFileSync(file)).digest('hex');
      expect(digest, `${file} differs from the published anchor file`).toBe(
        ANCHOR_SHA256[file.slice(file.lastIndexOf('/') + 1)],
      );
    }
  });

  it('is reproducible to the digit: the same inputs give the same plan', async () => {
    const again = join(mkdtempSync(join(tmpdir(), 'scalegate-plan-')), 'plan.json');
    await runCli([
      'plan',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--qmax',
      anchorQmaxFile,
      '--ttotal',
      anchorTtotalFile,
      '--out',
      again,
    ]);
    const second = readArtifact('plan', again);
    const strip = (p: PlanArtifact) => ({ ...p, run_id: '', created_at: '' });
    expect(strip(second)).toEqual(strip(plan));
    expect(second.derived.surge_overflow_probability).toBe(plan.derived.surge_overflow_probability);
  });

  it('the committed artifacts/plan-kokoro-82m.json is what `scalegate plan` derives today from the committed anchors (never stale)', async () => {
    const fresh = join(mkdtempSync(join(tmpdir(), 'scalegate-plan-')), 'plan.json');
    const run = await runCli([
      'plan',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--qmax',
      anchorQmaxFile,
      '--ttotal',
      anchorTtotalFile,
      '--out',
      fresh,
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const committedFile = join(repoRoot, 'artifacts', 'plan-kokoro-82m.json');
    expect(existsSync(committedFile), `${committedFile} is missing`).toBe(true);
    // Run id, time, the tool's version and where the inputs were read from may differ; nothing else.
    const strip = (p: PlanArtifact) => ({
      ...p,
      run_id: '',
      created_at: '',
      provenance: { ...p.provenance, tool: '' },
      inputs: {
        ...p.inputs,
        qmax: { ...p.inputs.qmax, file: '' },
        ttotal: p.inputs.ttotal ? { ...p.inputs.ttotal, file: '' } : null,
      },
    });
    expect(
      strip(readArtifact('plan', committedFile)),
      'artifacts/plan-kokoro-82m.json is stale: regenerate it with `npx tsx src/cli.ts plan --model kokoro-82m --qmax artifacts/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json --ttotal artifacts/ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json`',
    ).toEqual(strip(readArtifact('plan', fresh)));
  });
});
