/**
 * `scalegate plan --tune F`: the plan deploys the tune's chosen candidate (metric, target,
 * scale-in threshold, cooldowns, min/max instances, step scale-out, scheduled actions), says
 * "chosen by simulation on trace <digest12>" beside the policy, and is refused (exit 2, naming
 * --tune, the file and the fix) for a tune of another model, configuration or measurement run, or
 * one whose chosen candidate did not reach the required attainment. Plans without --tune are what
 * they were; the gate re-derives a tuned plan from its tune.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGate } from '../../src/commands/gate.js';
import { runPlan } from '../../src/commands/plan.js';
import {
  isUsageError,
  loadModelContext,
  type PlanArtifact,
  planArtifactSchema,
  readArtifact,
  validateFileName,
  writeArtifact,
} from '../../src/model/index.js';
import { renderReport } from '../../src/report/markdown.js';
import { anchorQmaxFile, anchorTtotalFile, repoRoot } from '../helpers/anchor.js';
import { buildTune, TUNED_POLICY } from '../helpers/tune-data.js';
import { artifactsDirWith, cleanValidate, kokoroMeasurements, kokoroModel } from '../infra/fixtures.js';

const context = loadModelContext({
  configFile: join(repoRoot, 'scalegate.config.json'),
  modelName: 'kokoro-82m',
});
const committedPlanFile = join(repoRoot, 'artifacts', 'plan-kokoro-82m.json');
const qmax = readArtifact('qmax', anchorQmaxFile);
const ttotal = readArtifact('ttotal', anchorTtotalFile);

/** The anchor measurements and a tune of them (with `overrides`) in a fresh directory. */
function tuned(
  overrides: Parameters<typeof buildTune>[3] = {},
  edit?: (t: ReturnType<typeof buildTune>) => void,
) {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-plan-tune-'));
  const tune = buildTune(qmax, ttotal, { qmax: anchorQmaxFile, ttotal: anchorTtotalFile }, overrides);
  edit?.(tune);
  const tuneFile = join(dir, 'tune-kokoro-82m.json');
  writeArtifact('tune', tuneFile, tune);
  return { dir, tuneFile, outFile: join(dir, 'plan-kokoro-82m.json') };
}

const plan = (extra: Record<string, unknown>) =>
  runPlan(
    {
      modelName: context.modelName,
      model: context.model,
      qmaxFile: anchorQmaxFile,
      ttotalFile: anchorTtotalFile,
      ...extra,
    },
    { clock: () => new Date('2026-12-01T00:00:00Z'), version: 'test' },
  );

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(isUsageError(e), String(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('not refused');
}

describe('plan artifact schema: scheduled actions, step scale-out, chosen_by', () => {
  it('parses the committed plan (no such fields) as deploying none (prevents every existing plan failing to parse)', () => {
    const committed = readArtifact('plan', committedPlanFile);
    expect(committed.deployable.scheduled_actions).toBeUndefined();
    expect(committed.deployable.step_scale_out).toBeUndefined();
    expect(committed.policy?.chosen_by).toBeUndefined();
    expect(committed.inputs.tune).toBeUndefined();
  });

  it('round-trips a tuned deployable and chosen_by, and refuses a malformed scheduled action (prevents a tuned plan losing what it deploys on the way through a file)', () => {
    const committed = readArtifact('plan', committedPlanFile);
    const withTune = {
      ...committed,
      deployable: {
        ...committed.deployable,
        scheduled_actions: TUNED_POLICY.scheduled_actions,
        step_scale_out: TUNED_POLICY.step_scale_out,
      },
    };
    const parsed = planArtifactSchema.parse(JSON.parse(JSON.stringify(withTune)));
    expect(parsed.deployable.scheduled_actions).toEqual(TUNED_POLICY.scheduled_actions);
    expect(parsed.deployable.step_scale_out).toEqual(TUNED_POLICY.step_scale_out);
    const bad = {
      ...withTune,
      deployable: {
        ...withTune.deployable,
        scheduled_actions: [{ name: '', schedule: 'x', min_capacity: 1 }],
      },
    };
    expect(planArtifactSchema.safeParse(bad).success).toBe(false);
  });
});

describe('plan without --tune', () => {
  it('re-derives the committed anchor plan value for value, with no scheduled action, step scale-out or chosen_by (prevents the tune fields changing every plan)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-plan-tune-'));
    const result = plan({ outFile: join(dir, 'plan.json') });
    const committed = readArtifact('plan', committedPlanFile);
    expect(result.artifact?.deployable).toEqual(committed.deployable);
    expect(result.artifact?.findings).toEqual(committed.findings);
    const written = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8'));
    expect(Object.keys(written.deployable)).not.toContain('scheduled_actions');
    expect(Object.keys(written.deployable)).not.toContain('step_scale_out');
    expect(Object.keys(written.policy)).not.toContain('chosen_by');
    expect(result.report).not.toContain('chosen by simulation');
  });
});

describe('plan --tune', () => {
  it("deploys the chosen candidate's values and says chosen by simulation on the trace's digest in the text and the Markdown (prevents a tuned policy deploying the operating point instead, or unlabelled)", () => {
    const files = tuned();
    const result = plan({ tuneFile: files.tuneFile, outFile: files.outFile });
    const p = result.artifact as PlanArtifact;
    expect(p.deployable).toMatchObject({
      scaling_metric: 'ConcurrentRequestsPerModel',
      scaling_target_value: 5,
      scale_in_threshold: 3,
      scale_out_cooldown_s: 60,
      scale_in_cooldown_s: 600,
      min_instances: 2,
      max_instances: 500,
      scheduled_actions: TUNED_POLICY.scheduled_actions,
      step_scale_out: TUNED_POLICY.step_scale_out,
      // Not the tune's: the measured queue depth and service time stay.
      queue_max_depth: qmax.q_max,
    });
    expect(p.policy?.chosen_by).toEqual({
      method: 'simulation',
      tune_file: files.tuneFile,
      tune_run_id: 'tune-run-1',
      trace_sha256: 'abcdef0123456789'.padEnd(64, '0'),
      trace_source: 'traces/weekday.csv',
      label: 'chosen by simulation on trace abcdef012345',
    });
    expect(p.inputs.tune).toMatchObject({ file: files.tuneFile, run_id: 'tune-run-1' });
    expect(result.report).toMatch(
      /deployed: ConcurrentRequestsPerModel target 5 \(chosen by simulation on trace abcdef012345/,
    );
    expect(result.report).toMatch(
      /scheduled action morning-ramp +cron\(30 7 \* \* \? \*\) UTC: min 40, max 500/,
    );
    expect(result.report).toMatch(/step scale-out +above 8 .*\+0 to \+4: \+2; \+4 and above: \+5/);
    const md = renderReport({
      modelName: 'kokoro-82m',
      command: 'plan',
      exitCode: 0,
      version: 'test',
      plan: { artifact: p as never, file: files.outFile },
    });
    expect(md).toContain('chosen by simulation on trace abcdef012345');
    expect(md).toContain(
      '- scheduled action night-floor: cron(0 22 \\* \\* ? \\*) UTC: min 2, max 500 instances',
    );
  });

  it('prints the scheduled actions and the step scale-out in --format json and tfvars (prevents Terraform deploying a tuned plan without them)', () => {
    const files = tuned();
    plan({ tuneFile: files.tuneFile, outFile: files.outFile });
    const printed = (format: 'json' | 'tfvars') =>
      runPlan({ modelName: context.modelName, model: context.model, fromFile: files.outFile, format }).report;
    const json = JSON.parse(printed('json'));
    expect(json.scalegate_scheduled_actions).toEqual([
      {
        name: 'scalegate-speech-kokoro-82m-AllTraffic-morning-ramp',
        schedule: 'cron(30 7 * * ? *)',
        timezone: 'UTC',
        min_capacity: 40,
        max_capacity: 500,
      },
      {
        name: 'scalegate-speech-kokoro-82m-AllTraffic-night-floor',
        schedule: 'cron(0 22 * * ? *)',
        timezone: 'UTC',
        min_capacity: 2,
        max_capacity: 500,
      },
    ]);
    expect(json.scalegate_step_scale_out).toMatchObject({
      policy_name: 'scalegate-speech-kokoro-82m-AllTraffic-step-scale-out',
      threshold: 8,
      steps: [
        { metric_interval_lower_bound: 0, metric_interval_upper_bound: 4, scaling_adjustment: 2 },
        { metric_interval_lower_bound: 4, metric_interval_upper_bound: null, scaling_adjustment: 5 },
      ],
    });
    expect(printed('tfvars')).toMatch(
      /^scalegate_scheduled_actions += \[\{ name = "scalegate-speech-kokoro-82m-AllTraffic-morning-ramp", schedule = "cron\(30 7 \* \* \? \*\)", timezone = "UTC", min_capacity = 40, max_capacity = 500 \}, \{ name = .*night-floor.* \}\]$/m,
    );
    // A plan without them prints neither variable (the committed anchor plan's output is unchanged).
    const untuned = JSON.parse(
      runPlan({
        modelName: context.modelName,
        model: context.model,
        fromFile: committedPlanFile,
        format: 'json',
      }).report,
    );
    expect(untuned).not.toHaveProperty('scalegate_scheduled_actions');
    expect(untuned).not.toHaveProperty('scalegate_step_scale_out');
  });

  it('still compares the tuned target with the surge analysis: a target above the surge-safe one is reported (prevents a simulated trace hiding the surge the plan is sized for)', () => {
    const committed = readArtifact('plan', committedPlanFile);
    const surgeSafe = committed.policy?.candidates.find((c) => c.metric === 'ConcurrentRequestsPerModel');
    expect(surgeSafe?.target_value).toBe(6);
    const within = plan({ tuneFile: tuned().tuneFile, outFile: join(tuned().dir, 'a.json') }).artifact;
    expect(within?.findings.find((f) => f.name === 'tuned_policy')).toMatchObject({ verdict: 'ok' });
    const above = tuned({ policy: { ...TUNED_POLICY, target_value: 9 } });
    const result = plan({ tuneFile: above.tuneFile, outFile: above.outFile });
    const finding = result.artifact?.findings.find((f) => f.name === 'tuned_policy');
    expect(finding?.verdict).toBe('warn');
    expect(finding?.detail).toMatch(/the target 9 is above the surge-safe target 6 of the surge analysis/);
    expect(finding?.fix).toMatch(/at or below 6/);
    expect(result.artifact?.deployable.scaling_target_value).toBe(9);
    expect(result.artifact?.warn_count).toBe((within?.warn_count ?? 0) + 1);
  });

  it("keeps the plan's own maximum when the tune sized its fleet for a smaller trace, in the range and in every scheduled action (prevents a tuned plan capping the fleet below the stated peak)", () => {
    const small = tuned({
      policy: {
        ...TUNED_POLICY,
        max_instances: 10,
        scheduled_actions: [
          { name: 'morning-ramp', schedule: 'cron(30 7 * * ? *)', min_capacity: 8, max_capacity: 10 },
        ],
      },
    });
    const untuned = plan({ outFile: join(small.dir, 'untuned.json') }).artifact as PlanArtifact;
    const p = plan({ tuneFile: small.tuneFile, outFile: small.outFile }).artifact as PlanArtifact;
    expect(untuned.deployable.max_instances).toBeGreaterThan(10);
    expect(p.deployable.max_instances).toBe(untuned.deployable.max_instances);
    expect(p.deployable.scheduled_actions).toEqual([
      {
        name: 'morning-ramp',
        schedule: 'cron(30 7 * * ? *)',
        min_capacity: 8,
        max_capacity: untuned.deployable.max_instances,
      },
    ]);
  });

  it.each([
    [
      'another model',
      () => tuned({ modelName: 'other-model' }),
      /--tune .*tune-kokoro-82m\.json tuned model other-model, not kokoro-82m: pass this model's tune artifact, or tune it with `scalegate tune --model kokoro-82m/,
    ],
    [
      'another configuration',
      () =>
        tuned({}, (t) => {
          t.fingerprint = { ...t.fingerprint, instance_type: 'ml.g6.xlarge' };
        }),
      /--tune .*tune-kokoro-82m\.json was tuned on measurements of another configuration .*instance_type ml\.g5\.xlarge vs ml\.g6\.xlarge.*Tune again on this qmax with `scalegate tune/,
    ],
    [
      'another qmax run',
      () =>
        tuned({}, (t) => {
          t.inputs.qmax.run_id = 'older-qmax';
        }),
      /--tune .*simulated qmax run older-qmax .*the plan reads run b8fa8ef48043 .*: plan with --qmax .*, or tune again/,
    ],
    [
      'another ttotal run',
      () =>
        tuned({}, (t) => {
          t.inputs.ttotal.run_id = 'older-ttotal';
        }),
      /--tune .*simulated ttotal run older-ttotal .*the plan reads run 2cd00ae01f84 .*: plan with --ttotal .*, or tune again/,
    ],
    [
      'a chosen candidate that does not hold',
      () => tuned({ chosenHolds: false }),
      /--tune .*: no candidate reached the required window SLO attainment 99\.0 % on trace abcdef012345 .*reached 97\.0 %, computed.*Widen the candidates .* or plan without --tune/,
    ],
  ])(
    'refuses a tune of %s, naming --tune, the file and the fix (prevents deploying a policy simulated for something else)',
    (_what, make, message) => {
      const files = make();
      expect(refusal(() => plan({ tuneFile: files.tuneFile, outFile: files.outFile }))).toMatch(message);
    },
  );

  it('refuses --tune with --policy-rule seed (prevents one of two contradictory requests being silently dropped)', () => {
    const files = tuned();
    expect(
      refusal(() => plan({ tuneFile: files.tuneFile, policyRule: 'seed', outFile: files.outFile })),
    ).toMatch(
      /--tune .* deploys the tune's chosen candidate and --policy-rule seed the closed-loop rule: drop one/,
    );
  });

  it('lets the gate re-derive the tuned plan from its tune, and refuses it when the tune is gone (prevents a hand-edited or orphaned tuned plan deploying)', async () => {
    const dir = artifactsDirWith({});
    const m = kokoroMeasurements();
    const qmaxFile = join(dir, 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
    const ttotalFile = join(dir, 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json');
    writeArtifact('qmax', qmaxFile, m.qmax);
    writeArtifact('ttotal', ttotalFile, m.ttotal as NonNullable<typeof m.ttotal>);
    const tuneFile = join(dir, 'tune-kokoro-82m.json');
    writeArtifact(
      'tune',
      tuneFile,
      buildTune(m.qmax, m.ttotal as NonNullable<typeof m.ttotal>, { qmax: qmaxFile, ttotal: ttotalFile }),
    );
    const planFile = join(dir, 'plan-kokoro-82m.json');
    const planned = runPlan(
      {
        modelName: 'kokoro-82m',
        model: kokoroModel(),
        qmaxFile,
        ttotalFile,
        tuneFile,
        peakRps: 1200,
        outFile: planFile,
      },
      { version: 'test' },
    );
    expect(planned.artifact?.policy?.chosen_by?.label).toBe('chosen by simulation on trace abcdef012345');
    writeArtifact(
      'validate',
      join(dir, validateFileName('kokoro-82m')),
      cleanValidate(planned.artifact as PlanArtifact),
    );
    const gate = () =>
      runGate(
        {
          modelName: 'kokoro-82m',
          model: kokoroModel({ peak_rps: 1200 }),
          configFile: 'scalegate.config.json',
          planFile,
          region: 'us-east-1',
          offline: true,
        },
        {
          assetHash: () => {
            throw new Error('an image_uri model must not hash a directory');
          },
        },
      );
    const passed = await gate();
    expect(passed.report).toMatch(/✓ rederived +every deployable value follows from .*tune-kokoro-82m\.json/);
    expect(passed.exitCode, passed.report).toBe(0);
    rmSync(tuneFile);
    const refused = await gate();
    expect(refused.exitCode).toBe(1);
    expect(refused.report).toMatch(/✗ measurements +the plan's tune measurement \(run tune-run-1/);
    expect(refused.report).toMatch(/--tune .*tune-kokoro-82m\.json/);
  });
});
