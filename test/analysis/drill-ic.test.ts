import { describe, expect, it } from 'vitest';
import { desiredFromDescription } from '../../src/analysis/drill.js';
import { fromZeroPlan, icStartCopies, judgeFromZero } from '../../src/analysis/drill-ic.js';
import { completeDrill } from '../../src/analysis/drill-merge.js';
import type { IcPathMeasurement } from '../../src/model/artifacts/ttotal.js';
import type { InferenceComponentPlan } from '../../src/model/index.js';
import { isUsageError } from '../../src/model/index.js';
import { drillData, windowsWith } from '../helpers/drill-data.js';

const plan = {
  component_name: 'e-ic',
  copies: { min: 0, max: 3, peak: 3, trough: 1 },
  paths: { warm: { t_plan_s: 70 }, cold: { t_plan_s: 80 }, zero: { t_plan_s: 35, origin: 'bound' } },
  scale_to_zero: {
    wake_tolerance_s: 30,
    retry: { attempts: 6, backoff_s: 3, covers_s: 18, attempts_needed: 12 },
  },
} as unknown as InferenceComponentPlan;

const wake = (over: Partial<IcPathMeasurement> = {}): IcPathMeasurement => ({
  component: 'e-ic',
  path: 'zero',
  origin: 'measured',
  copies_before: 0,
  copies_after: 1,
  wake_s: 12,
  no_capacity_failures: 4,
  other_failures: 0,
  failing_window: null,
  retry: {
    attempts: 6,
    backoff_s: 3,
    client_requests: 1,
    client_visible_failures: 0,
    retries: 4,
    retried_requests: 1,
  },
  wake_alarm_period_s: 10,
  ...over,
});

describe('the from-zero phase judgement', () => {
  const judged = fromZeroPlan(plan, 'plan.json');

  it('holds a wake within the tolerance whose failures the retries absorbed (prevents counting absorbed retries as client failures)', () => {
    const z = judgeFromZero(judged, wake(), []);
    expect(z).toMatchObject({ within_tolerance: true, within_retry_budget: true, held: true });
    expect(z.retry_budget).toEqual({ attempts: 6, backoff_s: 3, covers_s: 18 });
    expect(z.reasons.join(' ')).toMatch(/absorbed the 4 no-capacity failure\(s\) in 4 retries/);
  });

  it('fails a wake whose client requests failed after every retry, naming the attempts the plan would need (prevents a wake judged on its survivors)', () => {
    const w = wake({
      wake_s: 25,
      retry: { ...(wake().retry as NonNullable<IcPathMeasurement['retry']>), client_visible_failures: 1 },
    });
    const z = judgeFromZero(judged, w, []);
    expect(z).toMatchObject({ within_tolerance: true, within_retry_budget: false, held: false });
    expect(z.reasons.join(' ')).toMatch(/needs? at least 9 attempts|would need at least 9 attempts/);
  });

  it('fails a wake longer than the stated tolerance even with no client-visible failure (prevents a slow wake passing on retries)', () => {
    const z = judgeFromZero(judged, wake({ wake_s: 31 }), []);
    expect(z).toMatchObject({ within_tolerance: false, within_retry_budget: true, held: false });
  });

  it('fails when no request succeeded (prevents a timeout read as a wake)', () => {
    const z = judgeFromZero(judged, null, []);
    expect(z.held).toBe(false);
    expect(z.reasons[0]).toMatch(/no request succeeded within 70 s/);
  });

  it('refuses --from-zero on a plan without a wake rule and a start count outside the plan (prevents drilling what cannot happen)', () => {
    const warm = {
      ...plan,
      copies: { ...plan.copies, min: 2 },
      scale_to_zero: null,
      paths: { ...plan.paths, zero: null },
    };
    expect(() => fromZeroPlan(warm as InferenceComponentPlan, 'plan.json')).toThrow(
      /--from-zero.*min copies 2/,
    );
    expect(icStartCopies(plan, undefined, 'plan.json')).toBe(1);
    expect(icStartCopies(warm as InferenceComponentPlan, undefined, 'plan.json')).toBe(2);
    try {
      icStartCopies(plan, 4, 'plan.json');
      expect.unreachable();
    } catch (e) {
      expect(isUsageError(e)).toBe(true);
      expect((e as Error).message).toMatch(/--start-copies 4: outside the plan's 1\.\.3 copies/);
    }
  });

  it('reads the desired copy count from an inference component activity (prevents copy scale-outs missing from the lag chains)', () => {
    expect(desiredFromDescription('Setting desired copy count to 3.')).toBe(3);
    expect(desiredFromDescription('Setting desired instance count to 2.')).toBe(2);
  });

  it('a wake that did not hold fails the drill even when every window held, and one that held leaves the pass (prevents a pass that hides the wake)', () => {
    const base = drillData({ windows: windowsWith(), observer: null });
    const ic = (fromZero: ReturnType<typeof judgeFromZero>) => ({
      component: 'e-ic',
      start_copies: 1,
      copies_per_instance: 1,
      copy_target: 7,
      t_plan_path: 'cold' as const,
      from_zero: fromZero,
    });
    const held = completeDrill(
      { ...base, inference_component: ic(judgeFromZero(judged, wake(), [])) },
      [{ index: 0, count: 1 }],
      't',
    );
    expect(held).toMatchObject({ slo_held: true, verdict: 'pass' });
    const slow = completeDrill(
      { ...base, inference_component: ic(judgeFromZero(judged, wake({ wake_s: 31 }), [])) },
      [{ index: 0, count: 1 }],
      't',
    );
    expect(slow).toMatchObject({ slo_held: true, verdict: 'fail' });
    expect(slow.analysis.reasons[0]).toMatch(/the from-zero phase did not hold: the wake took 31 s/);
  });
});
