import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArtifact, type TuneScore, tunedPolicySchema } from '../../src/model/index.js';
import {
  candidateGrid,
  chooseTuned,
  paretoFlags,
  planPolicy,
  prescaleBases,
  seedRulePolicy,
  spreadTargets,
  withPareto,
} from '../../src/plan/tune.js';
import { anchorQmaxFile, repoRoot } from '../helpers/anchor.js';

const qmax = readArtifact('qmax', anchorQmaxFile);
const plan = readArtifact('plan', join(repoRoot, 'artifacts', 'plan-kokoro-82m.json'));

const score = (slo: number, hours: number, outside = 0): TuneScore => ({
  slo_attainment: slo,
  request_attainment: slo,
  windows: 100,
  windows_outside_slo: outside,
  requests: 1000,
  overflows: 0,
  instance_hours: hours,
  peak_instances: 3,
  scale_outs: 1,
  scale_ins: 1,
  p95_ttfab_ms: 100,
});

describe('the candidate grid', () => {
  const grid = candidateGrid(plan, qmax);

  it('is bounded by --max-candidates (40 by default), so a tune cannot grow into hours of simulation', () => {
    expect(grid.length).toBe(40);
    expect(candidateGrid(plan, qmax, { maxCandidates: 7 })).toHaveLength(7);
  });

  it('is deterministic: the same plan and ladder give the same candidates in the same order', () => {
    expect(candidateGrid(plan, qmax)).toEqual(grid);
    // A smaller bound keeps the same neighbourhood of the plan first (a prefix, not another sample).
    expect(candidateGrid(plan, qmax, { maxCandidates: 12 })).toEqual(grid.slice(0, 12));
  });

  it("starts with the plan's own policy, so the plan is always scored against its alternatives", () => {
    expect(grid[0]?.policy).toEqual(planPolicy(plan));
    expect(grid[0]?.note).toBe("the plan's own surge-safe policy");
  });

  it('holds only deployable, distinct policies (each passes the artifact schema; no label twice)', () => {
    for (const c of grid) expect(tunedPolicySchema.safeParse(c.policy).success).toBe(true);
    expect(new Set(grid.map((c) => c.label)).size).toBe(grid.length);
  });

  it('varies each choice the brief names around the plan: targets on both metrics, minimum, scale-in cooldown, step', () => {
    const base = planPolicy(plan);
    const policies = grid.map((c) => c.policy);
    expect(policies.some((p) => p.min_instances === base.min_instances + 1)).toBe(true);
    expect(policies.some((p) => p.min_instances === base.min_instances + 2)).toBe(true);
    expect(policies.some((p) => p.scale_in_cooldown_s === 2 * base.scale_in_cooldown_s)).toBe(true);
    const step = policies.find((p) => p.step_scale_out !== null)?.step_scale_out;
    expect(step?.threshold).toBeCloseTo(1.5 * base.target_value, 6);
    expect(step?.steps).toEqual([{ lower_bound: 0, upper_bound: null, adjustment: 50 }]);
    const concurrency = policies.filter((p) => p.scaling_metric === 'ConcurrentRequestsPerModel');
    const targets = new Set(concurrency.map((p) => p.target_value));
    expect(targets.size).toBeGreaterThanOrEqual(5);
    for (const t of targets) expect(Number.isInteger(t)).toBe(true);
    // Scale-in thresholds keep the plan's ratio (7 / 6 on the anchor plan), rounded up.
    for (const p of concurrency)
      expect(p.scale_in_threshold).toBe(Math.ceil(Number(((p.target_value * 7) / 6).toFixed(9))));
    expect(policies.some((p) => p.scaling_metric === 'InvocationsPerInstance')).toBe(true);
  });

  it('spreads targets evenly between the low and high levels and always keeps the plan target', () => {
    expect(spreadTargets(4, 37, 6, 7)).toEqual([4, 6, 11, 17, 24, 30, 37]);
    expect(spreadTargets(3, 3, 3, 7)).toEqual([3]);
  });

  it("scores the seed's closed-loop rule at the plan's recorded seed target (0.75 Q_max on concurrency)", () => {
    const seed = seedRulePolicy(plan);
    expect(seed.scaling_metric).toBe('ConcurrentRequestsPerModel');
    expect(seed.target_value).toBe(plan.policy?.seed_rule.target_value);
    expect(seed.scale_in_threshold).toBe(plan.policy?.seed_rule.scale_in_threshold);
  });
});

describe('the Pareto frontier (windows held up, instance-hours down)', () => {
  it('leaves a dominated entry off and keeps ties and trade-offs on', () => {
    const flags = paretoFlags([
      score(0.99, 10), // cheapest
      score(0.995, 12), // better and dearer: a trade-off
      score(0.98, 12), // worse and dearer than the first: dominated
      score(0.995, 12), // the same as the second: neither dominates
      score(1, 20),
      score(1, 21), // as good, dearer: dominated
    ]);
    expect(flags).toEqual([true, true, false, true, true, false]);
  });
});

describe('the choice', () => {
  const entries = withPareto(
    [score(0.99, 5), score(0.996, 9), score(0.999, 8), score(1, 20)].map((s, i) => ({
      label: `c${i}`,
      policy: null,
      score: s,
      pareto: false,
      note: '',
    })),
  );

  it('is the fewest instance-hours among the candidates that hold the required attainment', () => {
    const choice = chooseTuned(entries, 0.995);
    expect(choice.holds).toBe(true);
    expect(choice.chosen.label).toBe('c2');
  });

  it('is the best attainment, marked not holding, when no candidate holds (exit 1, never a silent pick)', () => {
    const choice = chooseTuned(entries.slice(0, 3), 0.9995);
    expect(choice.holds).toBe(false);
    expect(choice.chosen.label).toBe('c2');
  });

  it('pre-scales only frontier policies that missed windows and could undercut the chosen one', () => {
    const withPolicy = entries.map((e, i) => ({
      ...e,
      policy: planPolicy(plan),
      score: { ...e.score, windows_outside_slo: i === 3 ? 0 : 2 },
    }));
    const choice = chooseTuned(withPolicy, 0.995);
    expect(prescaleBases(withPolicy, choice, 5).map((e) => e.label)).toEqual(['c0']);
  });
});
