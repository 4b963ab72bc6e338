/**
 * The pure half of qmax: what makes a rung usable (and in which order the reasons are given), the
 * basis of the service time, the bracket of Q_max, one rung's CloudWatch join and the dry-run
 * schedule. A wrong call here silently moves Q_max, S_p95 or R, which every plan is derived from.
 */
import { describe, expect, it } from 'vitest';
import {
  CW_PERIOD_S,
  capacityChanged,
  falsePassBoundRecord,
  isClientBound,
  joinStepWithCloudWatch,
  type QmaxSettings,
  qmaxSchedule,
  qmaxStep,
  qmaxUpperBound,
  type RungObservation,
  rungResultOf,
  type StepRecord,
  serviceTime,
  serviceTimeBasis,
  serviceTimeBasisRecord,
  unusableReason,
} from '../../src/analysis/qmax.js';
import { qmaxStepSchema } from '../../src/model/artifacts/qmax.js';
import { mulberry32 } from '../../src/stats/prng.js';
import { CALIBRATION } from '../../src/stats/rung-decision.js';

const T0 = Date.parse('2026-03-02T10:00:00.000Z');

/** A settled, decisive rung at `concurrency` with seeded latencies around `centerMs`. */
function observation(
  concurrency: number,
  overrides: Partial<RungObservation> = {},
  centerMs = 100,
): RungObservation {
  const rand = mulberry32(concurrency * 7919);
  const ttfab = Array.from({ length: 200 }, () => centerMs + rand() * 20);
  const latency = ttfab.map((v) => v * 2);
  return {
    concurrency,
    startedWallMs: T0,
    holdMs: 30_000,
    measureMs: 20_000,
    windowStartWallMs: T0 + 10_000,
    windowEndWallMs: T0 + 30_000,
    end: 'decisive',
    evaluation: {
      method: 'batch-sectioning-sequential',
      n: 200,
      misses: 0,
      p95: centerMs + 19,
      interval: { low: centerMs + 17, high: centerMs + 20 },
      level: 0.9875,
      tails: { pass: 0.0025, fail: 0.01 },
      familyLevel: 0.95,
      verdict: 'pass',
      decisive: true,
      nearSlo: false,
      batches: 5,
      batchSize: 40,
      minBatchSize: 40,
      look: 1,
      maxLooks: 3,
      dependence: {
        initialBatches: 5,
        lengthened: 0,
        vonNeumann: 2.1,
        vonNeumannCritical: 0.84,
        halfBatchSeRatio: null,
        independent: true,
      },
      drift: { driftMs: 1, toleranceMs: 10, settled: true, reason: 'settled' },
      reason: 'interval inside the SLO',
    },
    looks: 1,
    okP95Interval: { low: centerMs + 17, high: centerMs + 20 },
    okTtfabMs: ttfab,
    okLatencyMs: latency,
    outcomeCounts: { ok: 200 },
    completed: 200,
    ok: 200,
    rejected: 0,
    failed: 0,
    censored: 0,
    achievedRps: 10,
    inFlight: { mean: concurrency, peak: concurrency, shortfall: 0 },
    loopDelayP99Ms: 2,
    loopUtilization: 0.3,
    ...overrides,
  };
}

const record = (o: RungObservation, run = 0, counts = [1], live = true): StepRecord => ({
  step: qmaxStep(o, run, 0, 300, counts, live),
  observation: o,
});

describe('rung usability', () => {
  it('calls a rung client-bound when the client could not keep N in flight, unless the server was rejecting', () => {
    const short = { inFlight: { mean: 9, peak: 10, shortfall: 0.1 }, loopUtilization: 0.2 };
    expect(isClientBound({ ...short, rejected: 0 })).toBe(true);
    // Rejections return at once: a saturated server, not the client, empties the slots.
    expect(isClientBound({ ...short, rejected: 5 })).toBe(false);
    expect(
      isClientBound({ inFlight: { mean: 10, peak: 10, shortfall: 0 }, rejected: 0, loopUtilization: 0.95 }),
    ).toBe(true);
    expect(
      isClientBound({ inFlight: { mean: 10, peak: 10, shortfall: 0.01 }, rejected: 0, loopUtilization: 0.5 }),
    ).toBe(false);
  });

  it('calls a starved client (event loop late by more than a quarter of the SLO at p99) client-bound, so its rung is unusable instead of a false fail', () => {
    const ok = { inFlight: { mean: 10, peak: 10, shortfall: 0 }, rejected: 0, loopUtilization: 0.3 };
    expect(isClientBound({ ...ok, loopDelayP99Ms: 74 }, 300)).toBe(false);
    expect(isClientBound({ ...ok, loopDelayP99Ms: 76 }, 300)).toBe(true);
    expect(isClientBound({ ...ok, loopDelayP99Ms: 500 })).toBe(false); // no SLO given: not judged
    const late = record(observation(8, { loopDelayP99Ms: 120 }));
    expect(late.step).toMatchObject({ usable: false, client_bound: true });
    expect(late.step.unusable_reason).toContain(
      'delay p99 120.0 ms > 25 % of the SLO: a starved client stamps audio late',
    );
    expect(record(observation(8, { loopDelayP99Ms: 20 })).step.usable).toBe(true);
  });

  it('counts a capacity change only on a live endpoint, and an unknown count (every describe failed) as none', () => {
    expect(capacityChanged([1], true)).toBe(false);
    expect(capacityChanged([1, 2], true)).toBe(true);
    expect(capacityChanged([2], true)).toBe(true);
    expect(capacityChanged([], true)).toBe(false);
    expect(capacityChanged([1, 2], false)).toBe(false);
  });

  it('gives the first reason in order: capacity, client, saturation, settling, no success', () => {
    const unsettled = {
      ...observation(4).evaluation,
      drift: { driftMs: 40, toleranceMs: 10, settled: false, reason: 'drift 40 ms' },
    };
    const everything = observation(4, {
      inFlight: { mean: 3, peak: 4, shortfall: 0.25 },
      rejected: 0,
      evaluation: unsettled,
      ok: 0,
    });
    expect(unusableReason(everything, [1, 2], true)).toMatch(
      /^capacity changed \(instance counts seen: 1, 2\)/,
    );
    expect(unusableReason(everything, [1], true)).toMatch(/^client-bound \(in-flight shortfall 25\.0 %/);
    expect(unusableReason(observation(4, { rejected: 3 }), [1], true)).toBe(
      'saturated (3 requests rejected)',
    );
    expect(unusableReason(observation(4, { evaluation: unsettled }), [1], true)).toBe(
      'not settled (drift 40 ms)',
    );
    expect(unusableReason(observation(4, { ok: 0 }), [1], true)).toBe('no successful request in the window');
    expect(unusableReason(observation(4), [1], true)).toBeNull();
  });

  it('records a usable step with the p95 of successful TTFABs, its interval, and whether it meets the SLO', () => {
    const { step } = record(observation(8));
    expect(step.usable).toBe(true);
    expect(step.unusable_reason).toBeNull();
    expect(step.ttfab_p95_ms).toBeGreaterThan(100);
    expect(step.ttfab_p95_ci_ms?.low).toBeLessThanOrEqual(step.ttfab_p95_ms as number);
    expect(step.ttfab_p95_ci_ms?.high).toBeGreaterThanOrEqual(step.ttfab_p95_ms as number);
    expect(step.meets_slo).toBe(true);
    expect(step.started_at).toBe('2026-03-02T10:00:00.000Z');
    expect(step).toMatchObject({ hold_s: 30, measure_s: 20, client_bound: false, capacity_changed: false });
  });

  it('records the dependence checks, the tails and near-SLO of the look the rung ended on (and validates)', () => {
    const { step } = record(observation(8));
    expect(step.dependence).toEqual({
      initial_batches: 5,
      lengthened: 0,
      von_neumann: 2.1,
      von_neumann_critical: 0.84,
      half_batch_se_ratio: null,
      independent: true,
    });
    expect(step.ci_tails).toEqual({ pass: 0.0025, fail: 0.01 });
    expect(step.near_slo).toBe(false);
    expect(qmaxStepSchema.parse(step)).toEqual(step);
    expect(rungResultOf({ ...step, end_reason: 'near_slo' }).nearSlo).toBe(true);
  });

  it('marks only a usable rung held undecided on a valid, independent interval as at the SLO (a void one is re-measured)', () => {
    const { step } = record(observation(8));
    const held = { ...step, verdict: 'undecided' as const, end_reason: 'hold' as const, usable: true };
    expect(held.ttfab_p95_ci_ms).not.toBeNull();
    expect(rungResultOf(held).heldUndecided).toBe(true);
    expect(rungResultOf({ ...held, usable: false }).heldUndecided).toBe(false);
    expect(rungResultOf({ ...held, ttfab_p95_ci_ms: null }).heldUndecided).toBe(false);
    expect(rungResultOf({ ...held, end_reason: 'decisive' }).heldUndecided).toBe(false);
    const dependent = { ...held, dependence: { ...(held.dependence as object), independent: false } };
    expect(rungResultOf(dependent as typeof held).heldUndecided).toBe(false);
    // A wide interval (in-flight misses at the window end) does not place the boundary: the
    // rung at 1.1 x the SLO with [244, 398] ms would otherwise end the search far below Q_max.
    expect(rungResultOf({ ...held, ttfab_p95_ci_ms: { low: 244, high: 398 } }).heldUndecided).toBe(false);
    expect(rungResultOf({ ...held, ttfab_p95_ci_ms: { low: 735, high: 789 } }).heldUndecided).toBe(true);
  });

  it('records the simulated false-PASS bound with its class for an adaptive ladder, none for a fixed one', () => {
    expect(falsePassBoundRecord('adaptive')).toEqual({
      bound: CALIBRATION.falsePassBound,
      worst_cell: CALIBRATION.worstCellFalsePass,
      coverage: CALIBRATION.coverage,
      worst_cell_coverage: CALIBRATION.worstCellCoverage,
      decision_method: 'batch-sectioning-sequential',
      calibrated_over: CALIBRATION.class,
    });
    expect(falsePassBoundRecord('fixed')).toBeNull();
  });
});

describe('service time and the bracket', () => {
  it('measures S_mean/S_p95 at the lowest usable rung, pooled over runs, never at a lower unusable one', () => {
    const lowUnusable = record(observation(1, { rejected: 2 }, 10));
    const usable2a = record(observation(2, {}, 100), 0);
    const usable2b = record(observation(2, {}, 100), 1);
    const usable4 = record(observation(4, {}, 400));
    const basis = serviceTimeBasis([lowUnusable, usable4, usable2a, usable2b]);
    expect(basis.map((b) => b.step.concurrency)).toEqual([2, 2]);
    const { sMeanS, sP95S } = serviceTime([lowUnusable, usable4, usable2a, usable2b]);
    // Latency is twice the TTFAB (100..120 ms) at rung 2: 200..240 ms.
    expect(sMeanS).toBeGreaterThan(0.2);
    expect(sMeanS).toBeLessThan(0.24);
    expect(sP95S).toBeGreaterThan(sMeanS);
  });

  it('records the service-time basis: concurrency 1 usable is no fallback; otherwise the rung taken and why 1 was not', () => {
    const one = record(observation(1, {}, 10));
    expect(serviceTimeBasisRecord([one, record(observation(2))])).toEqual({
      concurrency: 1,
      usable: true,
      fallback: false,
      reason: null,
    });
    const saturatedOne = record(observation(1, { rejected: 2 }, 10));
    expect(serviceTimeBasisRecord([saturatedOne, record(observation(2))])).toEqual({
      concurrency: 2,
      usable: true,
      fallback: true,
      reason: 'concurrency 1 was unusable: saturated (2 requests rejected)',
    });
    expect(serviceTimeBasisRecord([record(observation(5))])).toMatchObject({
      concurrency: 5,
      fallback: true,
      reason: 'the ladder has no rung at concurrency 1',
    });
    expect(serviceTimeBasisRecord([record(observation(3, { rejected: 1 }))])).toMatchObject({
      concurrency: 3,
      usable: false,
      fallback: true,
    });
    expect(serviceTimeBasisRecord([record(observation(3, { okLatencyMs: [] }))])).toBeNull();
  });

  it('falls back to every rung with latencies when none is usable, and to 0 without any', () => {
    const a = record(observation(3, { rejected: 1 }));
    const b = record(observation(6, { rejected: 1 }));
    expect(serviceTimeBasis([b, a]).map((r) => r.step.concurrency)).toEqual([3]);
    expect(serviceTime([record(observation(3, { okLatencyMs: [] }))])).toEqual({ sMeanS: 0, sP95S: 0 });
  });

  it('brackets Q_max by the lowest measured failure above it, never by a client-bound one', () => {
    const fail = (c: number, extra: Partial<RungObservation> = {}) =>
      record(
        observation(c, { evaluation: { ...observation(c).evaluation, verdict: 'fail', p95: 900 }, ...extra }),
      ).step;
    const clientBound = fail(9, { inFlight: { mean: 7, peak: 9, shortfall: 0.2 } });
    expect(qmaxUpperBound([fail(16), clientBound, fail(12), fail(4)], 8)).toBe(12);
    expect(qmaxUpperBound([clientBound], 8)).toBeNull();
  });
});

describe('the CloudWatch join of one rung', () => {
  it('takes R from the median of the per-period Maxima of whole periods inside the window over the client mean in-flight', () => {
    const o = observation(10, { inFlight: { mean: 10, peak: 10, shortfall: 0 } });
    const { step } = record(o);
    const start = T0 + 10_000;
    const periods = [start, start + 10_000]; // the two whole 10 s periods of the 20 s window
    const problem = joinStepWithCloudWatch(step, o, [
      { id: 'cmax', timestamps: [start - 10_000, ...periods], values: [99, 12, 11] },
      { id: 'cavg', timestamps: periods, values: [9, 10] },
      { id: 'lat', timestamps: [T0], values: [250_000] },
      { id: 'e5xx', timestamps: [T0], values: [3] },
    ]);
    expect(problem).toBeNull();
    expect(step.cw_ratio).toBeCloseTo(1.15, 9); // median(12, 11) / 10: the period before the window (99) is not counted
    expect(step.cw_periods).toBe(2);
    expect(step.server_concurrency_mean).toBeCloseTo(9.5, 9);
    expect(step.server_model_latency_p95_ms).toBe(250);
    expect(step.server_5xx_total).toBe(3);
  });

  it('leaves the rung unjoined, saying why, when no datapoint has arrived inside the window', () => {
    const o = observation(10);
    const { step } = record(o);
    expect(joinStepWithCloudWatch(step, o, [{ id: 'cmax', timestamps: [], values: [] }])).toMatch(
      /c=10: no ConcurrentRequestsPerModel datapoint inside the window/,
    );
    expect(step.cw_ratio).toBeNull();
  });
});

describe('the dry-run schedule', () => {
  const settings = (overrides: Partial<QmaxSettings> = {}): QmaxSettings => ({
    transport: 'response-stream',
    sloMs: 300,
    ladder: { mode: 'adaptive', rungs: [], maxConcurrency: 128, resolution: 2 },
    holdS: 5,
    measureS: 3,
    settleS: 1,
    runs: 2,
    requestTimeoutS: 60,
    cloudwatch: true,
    minSamples: 100,
    prompts: { source: 'built-in', texts: ['a'] },
    targetUrl: null,
    ...overrides,
  });
  const run = { modelName: 'm', endpoint: 'e', instanceHourlyUsd: 6 };

  it('gives an adaptive rung joined with CloudWatch at least settle + two periods, over every run, and its cost', () => {
    const s = qmaxSchedule(run, settings(), { rungs: 10, example: [1, 2, 4] });
    expect(s.worst_case_rung_seconds).toBe(10 * (1 + 2 * CW_PERIOD_S) * 2);
    expect(s.worst_case_rungs).toBe(20);
    expect(s.instance_minutes).toBeCloseTo(s.worst_case_rung_seconds / 60, 9);
    expect(s.estimated_cost_usd).toBeCloseTo((s.instance_minutes / 60) * 6, 9);
  });

  it('bills nothing for a container measured directly, and says when no price is known', () => {
    const http = qmaxSchedule(run, settings({ transport: 'http', targetUrl: 'http://x/invocations' }), {
      rungs: 3,
      example: [1, 2, 4],
    });
    expect(http).toMatchObject({ endpoint: null, instance_minutes: 0, estimated_cost_usd: null });
    const unpriced = qmaxSchedule({ ...run, instanceHourlyUsd: null }, settings(), {
      rungs: 3,
      example: [1],
    });
    expect(unpriced.notes.join(' ')).toMatch(/no instance_hourly_usd/);
  });
});
