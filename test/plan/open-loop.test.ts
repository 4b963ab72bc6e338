/**
 * The plan against random arrivals (`open_loop_headroom`). The Kokoro-82M ladder measured on AWS
 * holds each instance at X_target = 17.89 requests/s; lambda_max comes from the goodput command run
 * in simulated time against a serial server of the same capacity (one request at a time, 55.9 ms
 * each: 17.9 requests/s), its fingerprint set to the Kokoro ladder's so the two pair. The surge-safe
 * plan holds each instance below lambda_max with its target in open-loop units; the seed's rule
 * must warn, say by how much and give the concurrency target that leaves the headroom; refuse
 * a goodput artifact that does not describe the same endpoint and SLO; and the gate must derive
 * the same plan again from its three inputs, refusing it when the goodput file is missing.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runGoodput } from '../../src/commands/goodput.js';
import { VirtualClock } from '../../src/load/clock.js';
import {
  findPlanMeasurements,
  type GoodputArtifact,
  loadModelContext,
  type PlanArtifact,
  readArtifact,
} from '../../src/model/index.js';
import { evaluateGate } from '../../src/plan/gate.js';
import { concurrencyForThroughput, openLoopHeadroom } from '../../src/plan/open-loop.js';
import { anchorQmaxFile, anchorTtotalFile, configFile } from '../helpers/anchor.js';
import { runCli } from '../helpers/cli.js';
import { KOKORO_DIGEST } from '../infra/fixtures.js';
import { simulatedServer } from '../load/fixtures/simulated-server.js';

const dir = mkdtempSync(join(tmpdir(), 'scalegate-open-loop-plan-'));
const goodputFile = join(dir, 'goodput-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
const qmax = readArtifact('qmax', anchorQmaxFile);
let goodput: GoodputArtifact;

beforeAll(async () => {
  const context = loadModelContext({ configFile, modelName: 'kokoro-82m' });
  const clock = new VirtualClock();
  const server = simulatedServer({ clock, slots: 1, serviceMs: () => 1000 / 17.9, firstAudioShare: 0.25 });
  const run = runGoodput(
    {
      ...context,
      target: 'http://127.0.0.1:9',
      rates: [14, 16, 20],
      holdS: 900,
      settleS: 60,
      outFile: join(dir, 'simulated.json'),
    },
    {
      createTransport: () => server,
      loadClock: clock,
      now: () => Date.parse('2026-11-30T12:00:00Z') + clock.now(),
    },
  );
  let done = false;
  run.finally(() => {
    done = true;
  });
  while (!done) {
    await clock.run();
    await new Promise((r) => setImmediate(r));
  }
  const measured = (await run).artifact as GoodputArtifact;
  // Pair it with the AWS ladder: the same fingerprint (the simulated server stands for that instance).
  goodput = {
    ...measured,
    fingerprint: qmax.fingerprint,
    transport: 'response-stream',
    endpoint: 'speech-kokoro-82m',
  };
  writeFileSync(goodputFile, JSON.stringify(goodput));
}, 120_000);

const plan = (extra: string[], out: string) =>
  runCli([
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
    out,
    ...extra,
  ]);

describe('concurrencyForThroughput (the target that keeps an instance at a rate)', () => {
  const curve = qmax.steps.map((s) => ({ concurrency: s.concurrency, rps: s.achieved_rps }));
  it('interpolates on the measured curve between the rungs around the rate', () => {
    // X(1) = 16.08, X(5) = 17.9: 17.0 requests/s is reached at 1 + 4 (0.92 / 1.82) = 3.02 in flight.
    expect(concurrencyForThroughput(curve, 17.0)).toBeCloseTo(3.02, 2);
  });
  it('is null when even the lowest rung runs faster (no concurrency target can express the rate)', () => {
    expect(concurrencyForThroughput(curve, 15)).toBeNull();
  });

  it('is the fix of open_loop_headroom when the curve reaches lambda_max (in CloudWatch units too)', () => {
    const f = openLoopHeadroom({
      model: 'kokoro-82m',
      goodput: { ...goodput, lambda_max_rps: 17 },
      goodputFile: 'g.json',
      xTargetRps: 17.8875,
      scaleOutConcurrency: 37.5,
      curve,
      cwRatio: 1,
      peakRps: 5000,
      peakInstances: 280,
    });
    expect(f.verdict).toBe('warn');
    expect(f.detail).toMatch(/exceeds lambda_max 17\.00 requests\/s .* by 5\.2 %/);
    expect(f.fix).toMatch(
      /a concurrency target of 3\.02 in flight .*3\.02 in CloudWatch ConcurrentRequestsPerModel units\) leaves the measured headroom, instead of C_scale_max 37\.5/,
    );
  });

  it('says so when the search did not reach its resolution (the true lambda_max may lie up to the breach)', () => {
    const f = openLoopHeadroom({
      model: 'kokoro-82m',
      goodput: { ...goodput, search: { resolution_met: false, undecided_rates: [17] } },
      goodputFile: 'g.json',
      xTargetRps: 17.8875,
      scaleOutConcurrency: 37.5,
      curve,
      cwRatio: 1,
      peakRps: 5000,
      peakInstances: 280,
    });
    expect(f.detail).toMatch(
      /the search did not reach its resolution, undecided at 17 requests\/s: the true lambda_max may lie anywhere below the breach at 20 requests\/s/,
    );
  });

  it('is ok with the headroom when X_target stays below lambda_max, and suppressed without a goodput artifact', () => {
    const facts = {
      model: 'm',
      goodputFile: 'g.json',
      xTargetRps: 10,
      scaleOutConcurrency: 5,
      curve,
      cwRatio: null,
      peakRps: null,
      peakInstances: 1,
    };
    expect(openLoopHeadroom({ ...facts, goodput }).verdict).toBe('ok');
    expect(openLoopHeadroom({ ...facts, goodput }).detail).toMatch(/37\.5 % below lambda_max 16\.00/);
    expect(openLoopHeadroom({ ...facts, goodput: null }).verdict).toBe('suppressed');
  });
});

describe('plan --goodput on the Kokoro-82M ladder', () => {
  let p: PlanArtifact;
  let seed: PlanArtifact;
  let stdout: string;
  const out = join(dir, 'plan-kokoro-82m.json');
  const seedOut = join(dir, 'seed', 'plan-kokoro-82m.json');

  beforeAll(async () => {
    const run = await plan(['--goodput', goodputFile], out);
    expect(run.exitCode, run.stderr).toBe(0);
    stdout = run.stdout;
    p = readArtifact('plan', out);
    mkdirSync(join(dir, 'seed'), { recursive: true });
    await plan(['--goodput', goodputFile, '--policy-rule', 'seed'], seedOut);
    seed = readArtifact('plan', seedOut);
  });

  it('measured a bracketed lambda_max below the X_target of the policy', () => {
    expect(goodput.lambda_max_rps).toBe(16);
    expect(goodput.lambda_max_bracketed).toBe(true);
    expect(p.measured.lambda_max_rps).toBe(16);
  });

  it('with a goodput artifact the target is the per-period maximum in flight at lambda_safe, below lambda_max, never closed-loop concurrency', () => {
    const chosen = p.policy?.candidates.find((c) => c.metric === p.policy?.chosen_metric);
    expect(p.deployable.scaling_metric).toBe('ConcurrentRequestsPerModel');
    expect(p.deployable.scaling_target_value).toBe(chosen?.target_value);
    // Not the closed-loop concurrency of either rule: C_scale_max 37.5, nor X(C) = lambda_max.
    expect(p.deployable.scaling_target_value).not.toBe(37.5);
    expect(p.deployable.scaling_target_value).not.toBe(p.derived.open_loop_concurrency_target);
    expect(chosen?.target.method).not.toMatch(/closed-loop/);
    expect(chosen?.lambda_safe_rps).toBeLessThanOrEqual(16);
    const f = p.findings.find((x) => x.name === 'open_loop_headroom');
    expect(f?.verdict).toBe('ok');
    expect(f?.detail).toMatch(/^lambda_safe \d+\.\d\d requests\/s \(the surge-safe rate/);
    expect(p.derived.open_loop_headroom).toBeCloseTo(16 / (p.derived.lambda_safe_rps as number) - 1, 5);
  });

  it('caps lambda_safe at a lambda_max below it (the surge-safe rate never exceeds what random arrivals hold)', async () => {
    const low = { ...goodput, lambda_max_rps: 9, breach_rate_rps: 10 };
    const lowFile = join(dir, 'low', 'goodput-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
    mkdirSync(join(dir, 'low'), { recursive: true });
    writeFileSync(lowFile, JSON.stringify(low));
    const lowOut = join(dir, 'low', 'plan.json');
    const run = await plan(['--goodput', lowFile], lowOut);
    expect(run.exitCode, run.stderr).toBe(0);
    const capped = readArtifact('plan', lowOut);
    const chosen = capped.policy?.candidates.find((c) => c.metric === capped.policy?.chosen_metric);
    expect(chosen?.lambda_safe_rps).toBe(9);
    expect(chosen?.lambda_safe_bound).toBe('lambda_max');
    expect(capped.deployable.max_instances).toBe(Math.ceil(5000 / 9));
  });

  it('with the seed rule deployed, warns open_loop_headroom: at the target random arrivals break the SLO, by how much, and the concurrency target that leaves the headroom', () => {
    const f = seed.findings.find((x) => x.name === 'open_loop_headroom');
    expect(f?.verdict).toBe('warn');
    expect(f?.detail).toMatch(/^at the target, random arrivals break the SLO: X_target 17\.89 requests\/s/);
    expect(f?.detail).toMatch(
      /exceeds lambda_max 16\.00 requests\/s \(measured, bracketed by a breach at 20 requests\/s/,
    );
    expect(f?.detail).toMatch(/by 11\.8 %/);
    // lambda_max 16 lies below X(1) = 16.08: a serial server cannot be held below it by a concurrency target.
    expect(f?.fix).toMatch(/no concurrency target can express it/);
    expect(f?.fix).toMatch(/313 instances at peak instead of 280/);
    expect(seed.derived.open_loop_headroom).toBeCloseTo(16 / 17.8875 - 1, 5);
    expect(seed.verdict).toBe('stop');
    expect(seed.warn_count).toBe(4);
    expect(seed.findings.at(-1)?.name).toBe('open_loop_headroom');
  });

  it('shows lambda_max beside Q_max in the terminal report, with its provenance', () => {
    expect(stdout).toMatch(
      /Q_max\s+50 in flight \(POINT ESTIMATE[^\n]*\n\s+lambda_max \(open loop\)\s+16 requests\/s per instance \(measured, bracketed by a breach\)/,
    );
    expect(stdout).toMatch(/goodput .*goodput-kokoro-82m-response-stream-g5xlarge-8b1b96bc\.json/);
  });

  it('the gate derives the same plan from qmax, ttotal and goodput; without the goodput file it refuses', () => {
    const artifacts = join(dir, 'artifacts');
    mkdirSync(artifacts, { recursive: true });
    for (const f of [anchorQmaxFile, anchorTtotalFile, goodputFile])
      copyFileSync(f, join(artifacts, f.split('/').at(-1) as string));
    const { model } = loadModelContext({ configFile, modelName: 'kokoro-82m' });
    const gate = (measurements: ReturnType<typeof findPlanMeasurements>) =>
      evaluateGate({
        modelName: 'kokoro-82m',
        model,
        planFile: out,
        plan: p,
        measurements,
        // Only the re-derivation is under test here: no proofs to judge.
        proofs: null,
        deployImageDigest: KOKORO_DIGEST,
        deployRegion: 'us-east-1',
      }).checks.find((c) => c.check === 'rederived' || (c.check === 'measurements' && !c.ok));
    expect(gate(findPlanMeasurements(p, artifacts))).toMatchObject({ check: 'rederived', ok: true });
    const noGoodput = join(dir, 'artifacts-without-goodput');
    mkdirSync(noGoodput, { recursive: true });
    for (const f of [anchorQmaxFile, anchorTtotalFile])
      copyFileSync(f, join(noGoodput, f.split('/').at(-1) as string));
    expect(gate(findPlanMeasurements(p, noGoodput))).toMatchObject({ check: 'measurements', ok: false });
  });

  it('a plan edited to hide the warning is refused by the re-derivation', () => {
    const edited: PlanArtifact = {
      ...seed,
      warn_count: 3,
      findings: seed.findings.map((f) => (f.name === 'open_loop_headroom' ? { ...f, verdict: 'ok' } : f)),
    };
    const { model } = loadModelContext({ configFile, modelName: 'kokoro-82m' });
    const artifacts = join(dir, 'artifacts');
    const checks = evaluateGate({
      modelName: 'kokoro-82m',
      model,
      planFile: out,
      plan: edited,
      measurements: findPlanMeasurements(edited, artifacts),
      proofs: null,
      deployImageDigest: KOKORO_DIGEST,
      deployRegion: 'us-east-1',
    }).checks;
    expect(checks.find((c) => c.check === 'rederived')).toMatchObject({ ok: false });
    expect(checks.find((c) => c.check === 'rederived')?.detail).toMatch(
      /warn_count 3 \(plan\) vs 4 \(re-derived\)/,
    );
  });
});

describe('plan refuses a goodput artifact that does not describe this endpoint and SLO (exit 2, nothing written)', () => {
  const refusedWith = async (
    edit: (g: GoodputArtifact) => GoodputArtifact,
    pattern: RegExp,
    extra: string[] = [],
  ) => {
    const file = join(dir, `goodput-edited-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(edit(goodput)));
    const out = join(dir, `plan-${Math.random().toString(36).slice(2)}.json`);
    const run = await plan(['--goodput', file, ...extra], out);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(pattern);
    expect(existsSync(out)).toBe(false);
  };

  it('another SLO', () =>
    refusedWith(
      (g) => ({ ...g, slo_ms: 2000 }),
      /lambda_max was measured against a 2000 ms SLO, the plan uses 3000 ms/,
    ));

  it('another fingerprint (unless --allow-config-mismatch, which records it)', async () => {
    const other = (g: GoodputArtifact) => ({
      ...g,
      fingerprint: { ...g.fingerprint, instance_type: 'ml.g5.2xlarge' },
    });
    await refusedWith(
      other,
      /were measured on different configurations .*instance_type ml\.g5\.xlarge vs ml\.g5\.2xlarge/,
    );
    const file = join(dir, 'goodput-other-instance.json');
    writeFileSync(file, JSON.stringify(other(goodput)));
    const out = join(dir, 'plan-mismatch.json');
    const run = await plan(['--goodput', file, '--allow-config-mismatch'], out);
    expect(run.exitCode).toBe(0);
    expect(readArtifact('plan', out).inputs.mismatch_warnings.join(' ')).toMatch(
      /Q_max and lambda_max of different containers/,
    );
  });

  it('a shard file that nothing has decided yet', () =>
    refusedWith(
      (g) => ({ ...g, decided: false, lambda_max_rps: null, shards: [{ index: 0, count: 2 }] }),
      /one shard of a goodput run .*scalegate merge/,
    ));

  it('another model', () =>
    refusedWith(
      (g) => ({ ...g, model_name: 'reference-tts' }),
      /measured for model reference-tts, not kokoro-82m/,
    ));

  it('an unreadable file', async () => {
    const out = join(dir, 'plan-missing.json');
    const run = await plan(['--goodput', join(dir, 'no-such.json')], out);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(
      /no-such\.json: cannot read the goodput artifact \(no such file\)\. Produce one with `scalegate goodput`/,
    );
    expect(readFileSync(anchorQmaxFile, 'utf8').length).toBeGreaterThan(0);
    expect(existsSync(out)).toBe(false);
  });
});
