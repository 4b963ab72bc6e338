import { describe, expect, it } from 'vitest';
import { isLowerBound } from '../../src/analysis/ttotal.js';
import { combineRepeats } from '../../src/analysis/ttotal-repeat.js';
import { type QmaxArtifact, readArtifact, type TtotalArtifact } from '../../src/model/index.js';
import {
  plannedTtotal,
  qmaxDecisionFinding,
  qmaxProvenance,
  surgeSensitivity,
  throughputLowerCurve,
  validatedHolds,
} from '../../src/plan/uncertainty.js';
import type { ThroughputPoint } from '../../src/stats/surge.js';
import { checkHold } from '../../src/stats/validated-holds.js';
import { anchorQmaxFile, anchorTtotalFile } from '../helpers/anchor.js';

const qmax = readArtifact('qmax', anchorQmaxFile);
const ttotal = readArtifact('ttotal', anchorTtotalFile);

/** The plan's curve: mean achieved throughput per usable rung. */
const curve: ThroughputPoint[] = qmax.steps
  .filter((s) => s.usable)
  .map((s) => ({ concurrency: s.concurrency, rps: s.achieved_rps }));

/** The anchor ladder with its Q_max rung decided by a batch-sectioning interval. */
function intervalDecided(): QmaxArtifact {
  return {
    ...qmax,
    steps: qmax.steps.map((s) =>
      s.concurrency === qmax.q_max
        ? {
            ...s,
            decision_method: 'batch-sectioning',
            ttfab_p95_ci_ms: { low: 2700, high: 2950 },
            ci_level: 0.975,
          }
        : s,
    ),
  };
}

describe('the surge probability sensitivity band', () => {
  const at = (tPlanUpperS: number | null, rate = 12.31) =>
    surgeSensitivity({
      curve,
      qmax,
      surgeRatio: 1.25,
      rateRps: rate,
      tPlanS: 320.25,
      tPlanUpperS,
      tPlanUpperNote: tPlanUpperS === null ? 'not available: single observation' : 'test bound',
    });

  it('never falls below the plan figure when an input moves to its unfavourable bound, and all together is the worst (a band that could shrink would hide the risk)', () => {
    const band = at(400);
    const p = Object.fromEntries(band.items.map((i) => [i.vary, i.probability as number]));
    for (const vary of ['throughput_low', 'q_max_low', 't_plan_high'] as const) {
      expect(p[vary], vary).toBeGreaterThanOrEqual(band.nominal);
      expect(p.all, vary).toBeGreaterThanOrEqual(p[vary] as number);
    }
    expect(band.high).toBe(p.all);
    expect(band.low).toBe(band.nominal);
    // On this serial device each bound moves it materially (Q_max 50 -> 40 and 2.2 % less throughput).
    expect(p.throughput_low).toBeGreaterThan(band.nominal + 0.05);
    expect(p.q_max_low).toBeGreaterThan(band.nominal + 0.05);
  });

  it('grows monotonically with T_plan and with the rate held per instance', () => {
    const byT = [330, 400, 600, 1200].map(
      (t) => at(t).items.find((i) => i.vary === 't_plan_high')?.probability as number,
    );
    for (let i = 1; i < byT.length; i++) expect(byT[i]).toBeGreaterThanOrEqual(byT[i - 1] as number);
    const byRate = [10, 11, 12, 12.5].map((r) => at(null, r).high);
    for (let i = 1; i < byRate.length; i++) expect(byRate[i]).toBeGreaterThanOrEqual(byRate[i - 1] as number);
  });

  it('says T_plan has no upper bound from a single observation instead of inventing one', () => {
    const t = at(null).items.find((i) => i.vary === 't_plan_high');
    expect(t?.probability).toBeNull();
    expect(t?.used).toContain('single observation');
  });

  it('lowers every rung by its own count (1.645 / sqrt(completions)), never raises one', () => {
    const low = throughputLowerCurve(qmax);
    for (const p of low) {
      const step = qmax.steps.find((s) => s.concurrency === p.concurrency) as QmaxArtifact['steps'][number];
      expect(p.rps).toBeCloseTo(step.achieved_rps * (1 - 1.645 / Math.sqrt(step.completed)), 9);
    }
  });
});

describe('Q_max provenance', () => {
  it('flags the legacy Kokoro Q_max as a point estimate (qmax_not_interval_decided), never "measured, bracketed"', () => {
    const f = qmaxDecisionFinding(qmax, 'kokoro-82m');
    expect(f.verdict).toBe('warn');
    expect(f.detail).toMatch(/^qmax_not_interval_decided/);
    expect(qmaxProvenance(qmax)).toMatch(/^POINT ESTIMATE/);
  });

  it('passes a Q_max whose rung was decided by its interval, labelled measured, bracketed', () => {
    const decided = intervalDecided();
    expect(qmaxDecisionFinding(decided, 'kokoro-82m').verdict).toBe('ok');
    expect(qmaxProvenance(decided)).toBe('measured, bracketed');
  });

  it('does not accept an order-statistic interval from before the batch decision (no decision_method) as decided', () => {
    const iid: QmaxArtifact = {
      ...qmax,
      steps: qmax.steps.map((s) =>
        s.concurrency === qmax.q_max ? { ...s, ttfab_p95_ci_ms: { low: 2700, high: 2900 } } : s,
      ),
    };
    expect(qmaxDecisionFinding(iid, 'kokoro-82m').verdict).toBe('warn');
  });
});

describe('repeated T_total in the plan', () => {
  const run = (t: number, end: 'traffic_recovered' | 'in_service' = 'traffic_recovered'): TtotalArtifact => ({
    ...ttotal,
    t_total_s: t,
    t_total_end_stage: end,
    missing_stages: end === 'in_service' ? ['traffic_recovered'] : [],
  });

  it('labels a ttotal from before --repeat "measured, single observation"', () => {
    expect(plannedTtotal(ttotal)).toMatchObject({
      seconds: ttotal.t_total_s,
      origin: 'measured',
      provenance: 'measured, single observation',
      upper99S: null,
    });
  });

  it('takes the 90 % prediction bound of three scale-outs, above their median, with a stricter 99 % one for the band', () => {
    const p = plannedTtotal(combineRepeats([run(250), run(262), run(258)]));
    expect(p.origin).toBe('bound');
    expect(p.provenance).toBe('bound (upper 90 % prediction, n=3)');
    expect(p.seconds).toBeGreaterThan(258);
    expect(p.upper99S as number).toBeGreaterThan(p.seconds);
  });

  it('carries a lower-bound scale-out to the top and gives no bound (a lower bound cannot feed a prediction)', () => {
    const combined = combineRepeats([run(250), run(300, 'in_service'), run(258)]);
    expect(isLowerBound(combined)).toBe(true);
    expect(combined.t_total_s).toBe(300);
    expect(combined.t_total_prediction?.upper_s).toBeNull();
    expect(combined.t_total_prediction?.description).toContain('observation 2 of 3 is only a lower bound');
  });
});

describe('validated_hold', () => {
  it('is false when a ladder ran shorter holds than the coverage simulations validated, or did not record its settle (legacy)', () => {
    expect(checkHold('closed-loop', 120, 10).validated).toBe(true);
    expect(checkHold('closed-loop', 20, 3)).toMatchObject({ validated: false });
    expect(checkHold('closed-loop', 20, 3).detail).toContain('hold 20 s < 120 s, settle 3 s < 10 s');
    expect(checkHold('open-loop', 600, 60).validated).toBe(true);
    expect(checkHold('open-loop', 60, 30).validated).toBe(false);
    // The committed Kokoro ladder held 240 s but recorded no settle: not shown to be validated.
    expect(validatedHolds(qmax, null)).toMatchObject({ validated: false });
    expect(validatedHolds(qmax, null).detail).toContain('settle not recorded');
  });
});
