import { describe, expect, it } from 'vitest';
import { readArtifact } from '../../src/model/index.js';
import { evaluateFindings, type FindingFacts } from '../../src/plan/findings.js';
import { analyzeSurge } from '../../src/stats/surge.js';
import { anchorQmaxFile } from '../helpers/anchor.js';

const anchor = readArtifact('qmax', anchorQmaxFile);

function facts(overrides: Partial<FindingFacts>): FindingFacts {
  return {
    model: 'kokoro-82m',
    qmax: anchor,
    sloMs: 3000,
    serviceP95S: anchor.s_p95_s,
    waitBudgetS: 2.934,
    invocationCeilingS: 60,
    cwRatio: 1,
    cwRatioRung: 40,
    scaleOutConcurrency: 37.5,
    scaleInConcurrency: 25,
    surgeRatio: 1.25,
    tPlanS: 320,
    surge: null,
    minInstances: 3,
    maxInstances: 280,
    minSafeInstances: 3,
    peakInstances: 280,
    naivePeakInstances: 9,
    xTargetRps: 17.89,
    instanceHourlyUsd: null,
    tTotalOrigin: 'measured',
    tTotalS: 260,
    tTotalLowerBound: false,
    dominantStage: null,
    instanceQuota: null,
    ...overrides,
  };
}

const finding = (f: FindingFacts, name: string) => evaluateFindings(f).find((x) => x.name === name);

describe('measurement_trust', () => {
  it('over http says the instance count was not observed (a constant count would be fabricated), also for older artifacts that recorded [1]', () => {
    for (const counts of [[], [1]]) {
      const qmax = { ...anchor, transport: 'http' as const, frozen: false, instance_counts_observed: counts };
      const f = finding(facts({ qmax }), 'measurement_trust');
      expect(f?.verdict).toBe('warn');
      expect(f?.detail).toContain('instance count not observed');
      expect(f?.detail).not.toContain('one instance count seen');
    }
  });

  it('through an endpoint whose every capacity check failed says not observed, never "one instance count seen"', () => {
    const f = finding(facts({ qmax: { ...anchor, instance_counts_observed: [] } }), 'measurement_trust');
    expect(f?.verdict).toBe('warn');
    expect(f?.detail).toBe('instance count not observed (every capacity check failed)');
  });

  it('flags S_mean/S_p95 taken from a queueing rung because concurrency 1 was unusable', () => {
    const qmax = {
      ...anchor,
      service_time_basis: {
        concurrency: 5,
        usable: true,
        fallback: true,
        reason: 'concurrency 1 was unusable: saturated (2 requests rejected)',
      },
    };
    const f = finding(facts({ qmax }), 'measurement_trust');
    expect(f?.verdict).toBe('warn');
    expect(f?.detail).toBe(
      'S_mean/S_p95 come from concurrency 5, not an uncontended rung at 1 (concurrency 1 was unusable: saturated (2 requests rejected)): they may include queueing',
    );
    expect(f?.fix).toContain('concurrency-1 rung is usable');
    const atOne = {
      ...anchor,
      service_time_basis: { concurrency: 1, usable: true, fallback: false, reason: null },
    };
    expect(finding(facts({ qmax: atOne }), 'measurement_trust')?.verdict).toBe('ok');
  });
});

describe('queue_depth', () => {
  it('warns when the search did not reach its resolution, naming the breach and the undecided rungs', () => {
    const qmax = {
      ...anchor,
      q_max: 28,
      q_max_upper_bound: 64,
      search: { upper_bound: 64, resolution: 2, resolution_met: false, undecided_rungs: [32] },
    };
    const f = finding(facts({ qmax }), 'queue_depth');
    expect(f?.verdict).toBe('warn');
    expect(f?.detail).toContain(
      'did not reach its resolution: Q_max 28, lowest measured breach 64, requested resolution 2',
    );
    expect(f?.detail).toContain('undecided in between: 32');
    expect(f?.detail).toContain('Q_max may be up to 63');
  });

  it('is ok when the bracket is within the resolution, and for older artifacts without a search record', () => {
    const met = {
      ...anchor,
      search: { upper_bound: 60, resolution: 10, resolution_met: true, undecided_rungs: [] },
    };
    expect(finding(facts({ qmax: met }), 'queue_depth')?.verdict).toBe('ok');
    expect(finding(facts({}), 'queue_depth')?.verdict).toBe('ok');
  });
});

describe('surge_survival attributes the overflow honestly', () => {
  it('names the surge as the cause when the target alone holds, with the largest surge the plan survives', () => {
    const parallel = [
      { concurrency: 1, rps: 10 },
      { concurrency: 50, rps: 500 },
    ];
    const surge = analyzeSurge({
      curve: parallel,
      targetConcurrency: 20,
      queueLimit: 40,
      surgeRatio: 1.4,
      horizonS: 1,
    });
    expect(surge.cause).toBe('surge');
    const f = finding(
      facts({ surge: { ...surge, peakRps: 5000 }, surgeRatio: 1.4, tPlanS: 1 }),
      'surge_survival',
    );
    expect(f?.verdict).toBe('warn');
    expect(f?.detail).toMatch(
      /a 1\.4x surge overflows .* with probability 35\.\d %; with no surge \(k = 1\): 0\.2 %/,
    );
    expect(f?.detail).toContain('the surge is the cause');
    expect(f?.fix).toContain('this plan survives surges up to 1.25x');
  });

  it('over a lower-bound T_plan never says ok: the probability is "at least" and survival is not shown', () => {
    const parallel = [
      { concurrency: 1, rps: 10 },
      { concurrency: 50, rps: 500 },
    ];
    const surge = analyzeSurge({
      curve: parallel,
      targetConcurrency: 20,
      queueLimit: 40,
      surgeRatio: 1.1,
      horizonS: 1,
    });
    expect(surge.cause).toBe('none');
    const ok = finding(
      facts({ surge: { ...surge, peakRps: null }, surgeRatio: 1.1, tPlanS: 1 }),
      'surge_survival',
    );
    expect(ok?.verdict).toBe('ok');
    const bounded = finding(
      facts({ surge: { ...surge, peakRps: null }, surgeRatio: 1.1, tPlanS: 1, tTotalLowerBound: true }),
      'surge_survival',
    );
    expect(bounded?.verdict).toBe('warn');
    expect(bounded?.detail).toMatch(
      /within T_plan 1\.0 s \(from a LOWER-BOUND T_total: the real T_plan is longer\) with probability at least/,
    );
    expect(bounded?.detail).toContain('survival over the real T_plan is not shown');
    expect(bounded?.fix).toContain('scalegate ttotal --model kokoro-82m');
  });

  it('says "at least" when the computation budget ran out (a lower bound is never shown as exact)', () => {
    const surge = analyzeSurge({
      curve: [
        { concurrency: 1, rps: 1e5 },
        { concurrency: 5, rps: 1.79e6 },
        { concurrency: 600, rps: 1.79e6 },
      ],
      targetConcurrency: 375,
      queueLimit: 500,
      surgeRatio: 1.25,
      horizonS: 1e5,
    });
    expect(surge.exact).toBe(false);
    const f = finding(facts({ surge: { ...surge, peakRps: null } }), 'surge_survival');
    expect(f?.detail).toContain('at least');
    expect(f?.detail).toContain('bounds: the computation budget ran out');
  });
});
