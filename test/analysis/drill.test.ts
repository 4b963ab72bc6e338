/**
 * The drill's judgement, pure: what the plan promised (capacity within T_plan of a breach of its
 * target, and overflow there only as predicted), which windows broke it, the policy lag step by
 * step, and scale-in reversals; and the phases a plan gives.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  analyzeDrill,
  drillEstimate,
  drillPhases,
  drillPrediction,
  type WindowStat,
} from '../../src/analysis/drill.js';
import { readArtifact } from '../../src/model/index.js';
import { repoRoot } from '../helpers/anchor.js';
import {
  buildDrill,
  drillData,
  observerWith,
  okWindow,
  PHASES,
  PREDICTION,
  WINDOW_S,
  type WindowSpec,
  windowsWith,
} from '../helpers/drill-data.js';

const bad = (ttfabMs = 2000, overflow = 20): WindowSpec => ({ offered: 100, overflow, ttfabMs });
const busyBreachAt = (breachS: number, scaleOutAt: number | null) =>
  observerWith({ breachS, ...(scaleOutAt !== null ? { scaleOuts: [{ atS: scaleOutAt, to: 2 }] } : {}) });

describe('the verdict: whether the SLO held', () => {
  it('fails a drill whose steady windows overflowed even though the plan predicted overflow there, with the prediction beside it (prevents "the plan predicted it" passing a broken SLO)', () => {
    // The plan's no-surge baseline overflows with 99 %; the steady windows 2-4 overflow.
    const drill = buildDrill({
      windows: windowsWith({ 2: bad(700, 20), 3: bad(700, 20), 4: bad(700, 20) }),
      observer: busyBreachAt(0, null),
    });
    expect(drill.analysis.windows.filter((w) => w.judged === 'predicted').map((w) => w.index)).toEqual([
      2, 3, 4,
    ]);
    expect(drill.as_predicted).toBe(true);
    expect(drill.slo_held).toBe(false);
    expect(drill.verdict).toBe('fail');
    expect(drill.slo).toMatchObject({
      broken_windows: [2, 3, 4],
      broken_by_phase: { steady: 3, surge: 0 },
      max_overflow_probability: 0.05,
      max_overflow_origin: 'default',
      windows_judged: 16,
    });
    expect(drill.analysis.windows[2]).toMatchObject({ slo_held: false });
    expect(drill.analysis.windows[2]?.slo_reason).toMatch(
      /20 overflow\(s\) \(503\) = 20.0 % of arrivals > 5.0 %/,
    );
    expect(drill.analysis.reasons[0]).toMatch(
      /^the SLO broke in 3 of 16 full steady and surge window\(s\): steady 20 s-30 s/,
    );
    expect(drill.analysis.reasons[1]).toMatch(/^as the plan predicted: 3 window\(s\)/);
  });

  it('holds the SLO (pass) when every full steady and surge window is inside it with no overflow, whatever the trough did (prevents a clean drill failing)', () => {
    const drill = buildDrill({
      windows: windowsWith({ 16: bad(5000, 10), 17: bad(5000, 10) }),
      observer: busyBreachAt(60, 90),
    });
    expect(drill).toMatchObject({ slo_held: true, as_predicted: true, verdict: 'pass', broken_windows: [] });
    expect(drill.slo?.broken_windows).toEqual([]);
    expect(drill.analysis.windows.filter((w) => w.phase === 'trough').map((w) => w.slo_held)).toEqual([
      null,
      null,
    ]);
    expect(drill.analysis.reasons[0]).toMatch(/^the SLO held in all 16 full steady and surge window\(s\)/);
  });

  it('judges overflow by its share of a window’s arrivals against the plan’s max_overflow_probability (prevents a tolerance other than the plan’s)', () => {
    const windows = windowsWith({ 7: { offered: 100, overflow: 3, ttfabMs: 100 } });
    const tolerant = buildDrill({ windows, observer: busyBreachAt(60, 90) });
    expect(tolerant).toMatchObject({ slo_held: true, verdict: 'pass' });
    const strict = buildDrill({
      windows,
      observer: busyBreachAt(60, 90),
      prediction: { max_overflow_probability: 0.01, max_overflow_origin: 'plan' },
    });
    expect(strict).toMatchObject({ slo_held: false, verdict: 'fail' });
    expect(strict.slo).toMatchObject({ broken_windows: [7], max_overflow_origin: 'plan' });
    expect(strict.analysis.windows[7]?.slo_reason).toBe('3 overflow(s) (503) = 3.0 % of arrivals > 1.0 %');
  });

  it('does not take a drill with no full steady or surge window, or one whose client could not send the schedule, as proof the SLO held (prevents a vacuous pass)', () => {
    const stats: WindowStat[] = [
      { index: 16, offered: 20, ok: 20, overflow: 0, errors: 0, clientDropped: 0, p95Ms: 100 },
    ];
    const data = drillData({ windows: windowsWith(), observer: null });
    const empty = analyzeDrill({
      phases: PHASES,
      windowS: WINDOW_S,
      sloMs: 750,
      prediction: PREDICTION,
      windows: stats,
      seconds: data.load_seconds,
      observer: null,
    });
    expect(empty).toMatchObject({ sloHeld: false, verdict: 'fail' });
    expect(empty.analysis.reasons[0]).toMatch(/no full window of the steady or surge phase/);
    const dropped = analyzeDrill({
      phases: PHASES,
      windowS: WINDOW_S,
      sloMs: 750,
      prediction: PREDICTION,
      windows: [{ index: 0, offered: 100, ok: 99, overflow: 0, errors: 1, clientDropped: 1, p95Ms: 100 }],
      seconds: data.load_seconds,
      observer: null,
    });
    expect(dropped).toMatchObject({ sloHeld: false, verdict: 'fail' });
    expect(dropped.analysis.windows[0]?.slo_reason).toMatch(/1 arrival\(s\) the client could not send/);
  });
});

describe('as predicted: what the plan promised', () => {
  it('records breaches within T_plan of the breach of the target, where the plan predicted overflow, as predicted, and still fails the SLO (prevents a predicted breach read as a pass)', () => {
    const drill = buildDrill({
      windows: windowsWith({ 6: bad(), 7: bad(), 8: bad(900, 0) }),
      observer: busyBreachAt(60, 90),
    });
    expect(drill.verdict).toBe('fail');
    expect(drill.slo_held).toBe(false);
    expect(drill.as_predicted).toBe(true);
    expect(drill.slo?.broken_windows).toEqual([6, 7, 8]);
    expect(drill.broken_windows).toEqual([]);
    expect(drill.analysis.windows.filter((w) => w.judged === 'predicted').map((w) => w.index)).toEqual([
      6, 7, 8,
    ]);
    expect(drill.analysis.windows[6]?.reason).toMatch(
      /within T_plan 64 s of when the tracked metric exceeded the target 37.5 from 60 s.*surge_survival 100.0 %/,
    );
  });

  it('fails the windows that still break the SLO once T_plan has passed since the breach, naming each (prevents a policy that never scales passing)', () => {
    // The metric breaches from 60 s and nothing ever scales: T_plan ends at 124 s.
    const replace: Record<number, WindowSpec> = {};
    for (let i = 6; i < 16; i++) replace[i] = bad();
    const drill = buildDrill({ windows: windowsWith(replace), observer: busyBreachAt(60, null) });
    expect(drill.verdict).toBe('fail');
    expect(drill.broken_windows).toEqual([13, 14, 15]);
    const broken = drill.analysis.windows.filter((w) => w.judged === 'broken');
    expect(broken.map((w) => `${w.start_s}-${w.end_s}`)).toEqual(['130-140', '140-150', '150-160']);
    expect(broken[0]?.reason).toMatch(
      /20 overflow\(s\) \(503\).*more than T_plan 64 s after the load first exceeded the target 37.5 \(60 s in the surge\)/,
    );
    expect(drill.as_predicted).toBe(false);
    expect(drill.analysis.reasons[0]).toMatch(/^the SLO broke in 10 of 16/);
    expect(drill.analysis.reasons[1]).toMatch(
      /^not as the plan predicted: 3 window\(s\) broke the plan's promise: surge 130 s-140 s/,
    );
  });

  it('does not restart the T_plan clock when the metric dips under the target and comes back without any scale-out (prevents a policy that never scales passing on a fluctuating metric)', () => {
    const replace: Record<number, WindowSpec> = {};
    for (let i = 6; i < 16; i++) replace[i] = bad();
    // Over the target 60-80 s, under it 80-100 s, over again from 100 s: one load step, one clock.
    const observer = observerWith({
      breachS: 60,
      metric: (t) => (t >= 60 && (t < 80 || t >= 100) ? 45 : 20),
    });
    const drill = buildDrill({ windows: windowsWith(replace), observer });
    expect(drill.verdict).toBe('fail');
    expect(drill.broken_windows).toEqual([13, 14, 15]);
  });

  it('records any overflow the plan ruled out (surge_survival <= 10 %) as not as predicted, while the SLO verdict counts its share (prevents excusing breaches the plan ruled out)', () => {
    const drill = buildDrill({
      windows: windowsWith({ 7: { offered: 100, overflow: 1, ttfabMs: 100 } }),
      observer: busyBreachAt(60, 90),
      prediction: { surge_overflow_probability: 0.05 },
    });
    expect(drill.as_predicted).toBe(false);
    // 1 % of the window's arrivals overflowed, within the 5 % the plan tolerates: the SLO held.
    expect(drill).toMatchObject({ slo_held: true, verdict: 'pass' });
    expect(drill.broken_windows).toEqual([7]);
    expect(drill.analysis.windows[7]?.reason).toMatch(
      /the plan predicted no overflow here \(surge_survival 5.0 % <= 10.0 %\)/,
    );
  });

  it('judges a window over the SLO by its p95 and by the share answered within it, and leaves the trough unjudged (prevents failures counted as fast answers)', () => {
    const stats: WindowStat[] = [
      { index: 0, offered: 100, ok: 100, overflow: 0, errors: 0, clientDropped: 0, p95Ms: 800 },
      { index: 1, offered: 100, ok: 90, overflow: 0, errors: 10, clientDropped: 0, p95Ms: 100 },
      { index: 16, offered: 20, ok: 20, overflow: 0, errors: 0, clientDropped: 0, p95Ms: 5000 },
    ];
    const data = drillData({
      windows: windowsWith(),
      observer: null,
      prediction: { baseline_overflow_probability: 0.01 },
    });
    const within = data.load_seconds.map((s) => ({
      ...s,
      within_slo: s.t < 10 ? s.ok : s.t < 20 ? 8 : s.ok,
    }));
    const { analysis, verdict } = analyzeDrill({
      phases: PHASES,
      windowS: WINDOW_S,
      sloMs: 750,
      prediction: { ...PREDICTION, baseline_overflow_probability: 0.01 },
      windows: stats,
      seconds: within,
      observer: null,
    });
    expect(verdict).toBe('fail');
    const [w0, w1, w16] = [analysis.windows[0], analysis.windows[1], analysis.windows[2]];
    expect(w0).toMatchObject({ over_slo: true, judged: 'broken' });
    expect(w1).toMatchObject({ over_slo: true, within_slo_fraction: 0.8, judged: 'broken' });
    expect(w1?.reason).toMatch(/80.0 % within the SLO, 10 failed request\(s\)/);
    expect(w16).toMatchObject({ phase: 'trough', judged: 'not-judged', over_slo: true });
    // No metric was read: the allowance comes from the load steps, and the plan ruled overflow out here.
    expect(w0?.reason).toMatch(/no-surge baseline 1.0 % <= 10.0 %/);
  });
});

describe('the policy lag, step by step', () => {
  it('measures load step -> first breaching period -> ALARM -> activity -> desired from a busy endpoint, and compares detection with datapoints x period (prevents a lag that starts at the wrong event)', () => {
    const drill = buildDrill({ windows: windowsWith(), observer: busyBreachAt(60, 90) });
    const [chain] = drill.analysis.scale_outs;
    expect(chain).toMatchObject({
      load_step: 'surge',
      load_step_s: 60,
      first_breach_s: 60,
      alarm_s: 90,
      activity_s: 90,
      desired_s: 90.2,
      from_instances: 1,
      to_instances: 2,
      policy_lag_s: 30.2,
      detection_s: 30,
      configured_detection_s: 30,
      evaluation: 'full',
    });
    expect(chain?.scale_out_s).toBeCloseTo(4, 6);
    expect(drill.analysis.policy_lag).toMatchObject({
      seconds: 30.2,
      origin: 'measured',
      evaluation: 'full',
    });
    expect(drill.analysis.policy_lag.detail).toMatch(
      /^surge start 60 s -> first breaching period 60 s -> .* in ALARM 90 s -> scaling activity 90 s -> desired 1 -> 2 seen 90.2 s/,
    );
  });

  it('takes the origin from the later of the load step and the first breach: a breach that comes 20 s into the surge is not 20 s of lag (prevents crossing time counted as policy lag)', () => {
    const drill = buildDrill({ windows: windowsWith(), observer: busyBreachAt(80, 110) });
    expect(drill.analysis.policy_lag.seconds).toBeCloseTo(30.2, 6);
    expect(drill.analysis.scale_outs[0]?.first_breach_s).toBe(80);
  });

  it('labels a scale-out from an idle endpoint partial (its alarm fired on fewer datapoints) and prefers a full one (prevents a 10 s lag from an idle start replacing the plan’s)', () => {
    // No datapoint before 0 s (idle), the metric breaches from 0, the alarm fires after one period.
    const idle = observerWith({
      breachS: 0,
      scaleOuts: [{ atS: 10, to: 2 }],
      metric: (t) => (t < 0 ? Number.NaN : 45),
    });
    idle.metric.points = idle.metric.points.filter((p) => Number.isFinite(p.value));
    const onlyIdle = buildDrill({ windows: windowsWith(), observer: idle });
    expect(onlyIdle.analysis.scale_outs[0]).toMatchObject({
      evaluation: 'partial',
      detection_s: 10,
      configured_detection_s: 30,
    });
    expect(onlyIdle.analysis.policy_lag.evaluation).toBe('partial');
    expect(onlyIdle.analysis.policy_lag.detail).toMatch(
      /idle before it.*not the lag of a surge from a busy endpoint/,
    );

    // The same, then a surge from the busy fleet of 2 scales to 3 after a full evaluation.
    const both = observerWith({
      breachS: 0,
      scaleOuts: [
        { atS: 10, to: 2 },
        { atS: 100, to: 3 },
      ],
      metric: (t) => (t < 0 ? Number.NaN : t < 20 ? 45 : t < 70 ? 20 : 45),
    });
    both.metric.points = both.metric.points.filter((p) => Number.isFinite(p.value));
    const drill = buildDrill({ windows: windowsWith(), observer: both });
    expect(drill.analysis.scale_outs.map((c) => c.evaluation)).toEqual(['partial', 'full']);
    expect(drill.analysis.policy_lag).toMatchObject({ seconds: 30.2, evaluation: 'full' });
  });

  it('counts scale-ins and the reversals between scaling directions (prevents flapping going unseen)', () => {
    const drill = buildDrill({
      windows: windowsWith(),
      observer: observerWith({
        breachS: 60,
        scaleOuts: [
          { atS: 90, to: 2 },
          { atS: 175, to: 2 },
        ],
        scaleIns: [{ atS: 165, to: 1 }],
      }),
    });
    expect(drill.analysis.scale_in).toMatchObject({ scale_ins: 1, reversals: 2 });
    expect(drill.analysis.scale_in.detail).toBe('1 scale-in(s), 2 reversal(s) between scaling directions');
  });

  it('says when no scale-out happened and when there was no observer (prevents a lag of 0 standing for "not measured")', () => {
    expect(
      buildDrill({ windows: windowsWith(), observer: observerWith({ breachS: null }) }).analysis.policy_lag,
    ).toMatchObject({
      seconds: null,
      detail: 'no scale-out happened during the drill, so no policy lag was measured',
    });
    expect(buildDrill({ windows: windowsWith(), observer: null }).analysis.policy_lag.detail).toMatch(
      /no observer/,
    );
  });

  it('reports the time until the SLO holds again from the breach (prevents a recovery time that ignores the first good window)', () => {
    const drill = buildDrill({
      windows: windowsWith({ 6: bad(), 7: bad(), 8: bad() }),
      observer: busyBreachAt(60, 90),
    });
    expect(drill.analysis.slo_recovered_s).toBe(30);
  });
});

describe('the phases a plan gives', () => {
  const committed = readArtifact('plan', join(repoRoot, 'artifacts', 'plan-kokoro-82m.json'));
  // The committed plan as an older scalegate wrote it: no policy choice, no lambda_safe.
  const plan = {
    ...committed,
    policy: undefined,
    derived: { ...committed.derived, lambda_safe_rps: undefined },
  };
  const prediction = drillPrediction(plan, 'plan.json');

  it('drills the committed surge-safe plan at its lambda_safe x instances, not at the closed-loop X_target (prevents a drill of a load the fleet is not sized for)', () => {
    const surgeSafe = drillPrediction(committed, 'plan.json');
    const phases = drillPhases(committed, surgeSafe, {
      surgeRatio: 1.25,
      instances: 2,
      windowS: 10,
      scaleInWindowS: 900,
    });
    expect(committed.derived.lambda_safe_rps).toBeGreaterThan(11);
    expect(phases[0]?.rate_rps).toBeCloseTo(2 * (committed.derived.lambda_safe_rps as number), 6);
    expect(surgeSafe.max_overflow_origin).toBe('plan');
  });

  it('sizes the steady load from X_target x instances, the surge k times it, the trough from the plan, each rounded up to whole windows (prevents a steady load the plan never sized for)', () => {
    const phases = drillPhases(plan, prediction, {
      surgeRatio: 1.25,
      instances: 2,
      windowS: 10,
      scaleInWindowS: 900,
    });
    expect(phases.map((p) => [p.name, p.start_s, p.end_s])).toEqual([
      ['steady', 0, 390], // T_plan 320.25 + 60, up to 10 s
      ['surge', 390, 880], // T_plan + T_plan / 2 = 480.4, up to 490
      ['trough', 880, 2860], // 900 + scale-in cooldown 960 + 120
    ]);
    expect(phases[0]?.rate_rps).toBeCloseTo(2 * (plan.derived.x_target_rps as number), 6);
    expect(phases[1]?.rate_rps).toBeCloseTo(1.25 * 2 * (plan.derived.x_target_rps as number), 6);
    expect(phases[2]?.rate_rps).toBe(10);
    expect(phases[0]?.rate_source).toMatch(/^computed: X_target 17.887/);
    const chosen = drillPhases(plan, prediction, {
      surgeRatio: 2,
      instances: 2,
      windowS: 10,
      scaleInWindowS: 900,
      steadyRps: 20,
      steadyS: 25,
    });
    expect(chosen[0]).toMatchObject({ end_s: 30, rate_rps: 20 });
    expect(chosen[0]?.rate_source).toMatch(/^chosen: --steady-rps/);
    expect(chosen[1]?.rate_rps).toBe(40);
  });

  it('offers lambda_safe x instances in the steady phase when the plan has it, X_target for an older plan, and says which (prevents drilling the load the closed-loop target implies instead of the one the fleet is sized for)', () => {
    const choice = { surgeRatio: 1.25, instances: 2, windowS: 10, scaleInWindowS: 900 };
    expect(prediction.lambda_safe_rps).toBeNull();
    const safePlan = {
      ...plan,
      derived: { ...plan.derived, lambda_safe_rps: 12.5 },
      policy: { max_overflow_probability: 0.02 } as unknown as NonNullable<typeof plan.policy>,
    };
    const safe = drillPrediction(safePlan, 'plan.json');
    expect(safe).toMatchObject({
      lambda_safe_rps: 12.5,
      max_overflow_probability: 0.02,
      max_overflow_origin: 'plan',
    });
    const phases = drillPhases(safePlan, safe, choice);
    expect(phases[0]?.rate_rps).toBe(25);
    expect(phases[1]?.rate_rps).toBe(31.25);
    expect(phases[0]?.rate_source).toBe(
      "computed: lambda_safe 12.5 requests/s x 2 instance(s) (the chosen policy's surge-safe rate per instance, what the plan sizes the fleet for)",
    );
    const older = drillPhases(plan, prediction, choice);
    expect(older[0]?.rate_source).toMatch(
      /^computed: X_target 17.887 requests\/s x 2 instance\(s\) \(.*predates lambda_safe\)$/,
    );
    expect(drillPhases(safePlan, safe, { ...choice, steadyRps: 20 })[0]?.rate_source).toMatch(
      /^chosen: --steady-rps \(the plan's lambda_safe 12.5 x 2 instance\(s\) would be 25\)/,
    );
  });

  it('estimates duration, instance-minutes and cost from the settings (prevents a dry run that hides what a drill costs)', () => {
    const phases = drillPhases(plan, prediction, {
      surgeRatio: 1.25,
      instances: 2,
      windowS: 10,
      scaleInWindowS: 900,
    });
    const e = drillEstimate(phases, 2, 1.25, plan.deployable.max_instances, 1.41);
    expect(e.durationS).toBe(2860);
    expect(e.fleetAfterSurge).toBe(3);
    expect(e.instanceMinutes).toBeCloseTo((2 * 390 + 3 * 2470) / 60, 2);
    expect(e.costUsd).toBeCloseTo(((2 * 390 + 3 * 2470) / 3600) * 1.41, 2);
    expect(drillEstimate(phases, 2, 1.25, 2, null).costUsd).toBeNull();
  });

  it('takes what the plan promised from it, labelled (prevents a bound read as a measurement)', () => {
    expect(prediction).toMatchObject({
      scaling_target_value: plan.deployable.scaling_target_value,
      policy_lag_s: 60,
      policy_lag_origin: 'bound',
      t_total_origin: 'measured',
      planned_surge_ratio: 1.25,
      // An older plan: no policy choice, so the default tolerance, labelled.
      max_overflow_probability: 0.05,
      max_overflow_origin: 'default',
    });
    expect(prediction.t_plan_s).toBe(plan.derived.t_plan_s);
    expect(prediction.surge_overflow_probability).toBe(plan.derived.surge_overflow_probability);
    expect(okWindow().offered).toBe(100);
  });
});
