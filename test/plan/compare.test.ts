import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CompareCandidate, PlanArtifact } from '../../src/model/index.js';
import { rankCandidates, sloMargin, withFrontier } from '../../src/plan/compare.js';
import { anchorPlanFile } from '../commands/compare-fixtures.js';

const plan = (): PlanArtifact => JSON.parse(readFileSync(anchorPlanFile, 'utf8'));

const candidate = (label: string, cost: number, margin: number, extra: Partial<CompareCandidate> = {}) =>
  ({
    label,
    index: Number(label.slice(-1)),
    file: `${label}.json`,
    holds: true,
    choosable: true,
    usd_per_million_characters_surge_safe: { value: cost, origin: 'computed' },
    slo_margin: { value: margin, origin: 'computed' },
    pareto: false,
    rank: null,
    ...extra,
  }) as CompareCandidate;

describe('compare: SLO margin', () => {
  it('uses goodput lambda_max as the capacity when the plan has it (not the closed-loop throughput)', () => {
    const p = plan();
    p.measured.lambda_max_rps = 20;
    p.measured.lambda_max_bracketed = true;
    const m = sloMargin(p);
    expect(m.value).toBeCloseTo(1 - 12.305679 / 20, 4);
    expect(m.method).toMatch(/lambda_max .* measured by goodput/);
  });

  it('says the margin is a lower bound when lambda_max was not bracketed', () => {
    const p = plan();
    p.measured.lambda_max_rps = 20;
    p.measured.lambda_max_bracketed = false;
    expect(sloMargin(p).method).toMatch(/a lower bound, so the margin is too/);
  });

  it('is not available (null, said why) for a plan without lambda_safe', () => {
    const p = plan();
    p.derived.lambda_safe_rps = null;
    expect(sloMargin(p)).toEqual({ value: null, method: expect.stringMatching(/no surge-safe rate/) });
  });
});

describe('compare: frontier and rank', () => {
  it('puts on the frontier only the holding candidates no other beats on both cost and margin', () => {
    const out = withFrontier([
      candidate('c0', 5, 0.3),
      candidate('c1', 4, 0.2),
      candidate('c2', 6, 0.25), // dominated by c0
      candidate('c3', 1, 0.9, { holds: false, choosable: false }), // would dominate all, but fails
    ]);
    expect(out.map((c) => c.pareto)).toEqual([true, true, false, false]);
  });

  it('ranks the choosable by cost, a tie broken by the larger margin', () => {
    const { candidates, chosen } = rankCandidates([
      candidate('c0', 5, 0.2),
      candidate('c1', 5, 0.3),
      candidate('c2', 2, 0.1, { choosable: false }),
    ]);
    expect(chosen?.label).toBe('c1');
    expect(candidates.map((c) => c.rank)).toEqual([2, 1, null]);
  });

  it('ranks by the cost at the surge-safe load, where the fleet runs, not at the target (prevents choosing hardware that is cheap at full load but needs far more headroom)', () => {
    // c0 is cheaper at the target, but its slow start-up leaves it a small lambda_safe: dearer as deployed.
    const c0 = candidate('c0', 3, 0.9, {
      usd_per_million_characters_target: { value: 1, origin: 'computed' },
    });
    const c1 = candidate('c1', 1.5, 0.5, {
      usd_per_million_characters_target: { value: 1.2, origin: 'computed' },
    });
    const { chosen, candidates } = rankCandidates([c0, c1]);
    expect(chosen?.label).toBe('c1');
    expect(candidates.map((c) => c.rank)).toEqual([2, 1]);
  });
});
