import { describe, expect, it } from 'vitest';
import {
  classify,
  LadderPlanner,
  type LadderSettings,
  type RungResult,
  summarizeLadder,
  worstCaseRungs,
} from '../../src/load/ladder.js';

const adaptive = (maxConcurrency: number, resolution: number): LadderSettings => ({
  mode: 'adaptive',
  rungs: [],
  maxConcurrency,
  resolution,
});

/** Runs the planner against a server whose true Q_max is `boundary` (pass iff c <= boundary). */
function walk(settings: LadderSettings, verdictOf: (c: number) => RungResult['verdict']): RungResult[] {
  const planner = new LadderPlanner(settings);
  const results: RungResult[] = [];
  for (let c = planner.next(); c !== null; c = planner.next()) {
    const r: RungResult = { concurrency: c, verdict: verdictOf(c), usable: true };
    planner.record(r);
    results.push(r);
  }
  return results;
}

describe('adaptive ladder planner', () => {
  it('finds every boundary within the resolution and brackets it, for every resolution', () => {
    for (const resolution of [1, 2, 3, 5]) {
      for (let boundary = 1; boundary < 100; boundary++) {
        const results = walk(adaptive(128, resolution), (c) => (c <= boundary ? 'pass' : 'fail'));
        const summary = summarizeLadder(results);
        expect(summary.qMax).toBeLessThanOrEqual(boundary);
        expect(boundary - summary.qMax).toBeLessThan(resolution);
        expect(summary.bracketed).toBe(true);
        expect((summary.upperBound as number) - summary.qMax).toBeLessThanOrEqual(resolution);
        expect(new Set(results.map((r) => r.concurrency)).size).toBe(results.length);
        expect(summary.nonMonotone).toEqual([]);
      }
    }
  });

  it('measures concurrency 1 first and grows geometrically', () => {
    const results = walk(adaptive(128, 2), (c) => (c <= 50 ? 'pass' : 'fail'));
    expect(results.map((r) => r.concurrency).slice(0, 8)).toEqual([1, 2, 4, 8, 16, 32, 64, 48]);
  });

  it('stops at --max-concurrency when everything passes, and says Q_max is not bracketed', () => {
    const results = walk(adaptive(40, 2), () => 'pass');
    expect(results.map((r) => r.concurrency)).toEqual([1, 2, 4, 8, 16, 32, 40]);
    const summary = summarizeLadder(results);
    expect(summary).toMatchObject({ qMax: 40, bracketed: false, upperBound: null });
  });

  it('reports Q_max 0, bracketed by 1, when even concurrency 1 misses the SLO', () => {
    const results = walk(adaptive(64, 2), () => 'fail');
    expect(results.map((r) => r.concurrency)).toEqual([1]);
    expect(summarizeLadder(results)).toMatchObject({ qMax: 0, bracketed: true, upperBound: 1 });
  });

  it('an uncertain rung is an upper bound but no breach: the planner measures above it to bracket Q_max', () => {
    const results = walk(adaptive(128, 2), (c) => (c <= 20 ? 'pass' : c <= 32 ? 'uncertain' : 'fail'));
    const rungs = results.map((r) => r.concurrency);
    expect(rungs).toContain(64);
    const summary = summarizeLadder(results);
    expect(summary.qMax).toBeLessThanOrEqual(20);
    expect(summary.qMax).toBeGreaterThanOrEqual(18);
    expect(summary.bracketed).toBe(true);
    expect(summary.upperBound).toBe(64);
  });

  it('a passing rung that is unusable never counts as a pass; a client-bound failure is no breach', () => {
    expect(classify({ concurrency: 8, verdict: 'pass', usable: false })).toBe('indeterminate');
    expect(classify({ concurrency: 8, verdict: 'fail', usable: false, invalid: true })).toBe('indeterminate');
    expect(classify({ concurrency: 8, verdict: 'fail', usable: false })).toBe('fail');
    const summary = summarizeLadder([
      { concurrency: 1, verdict: 'pass', usable: true },
      { concurrency: 16, verdict: 'pass', usable: false },
      { concurrency: 32, verdict: 'fail', usable: false, invalid: true },
    ]);
    expect(summary).toMatchObject({ qMax: 1, bracketed: false });
  });

  it('reports a failure below a passing rung as non-monotone instead of hiding it', () => {
    const summary = summarizeLadder([
      { concurrency: 1, verdict: 'pass', usable: true },
      { concurrency: 8, verdict: 'fail', usable: true },
      { concurrency: 12, verdict: 'pass', usable: true },
      { concurrency: 16, verdict: 'fail', usable: true },
    ]);
    expect(summary.qMax).toBe(12);
    expect(summary.nonMonotone).toEqual(['concurrency 8 failed below passing concurrency 12']);
  });
});

describe('fixed ladder and worst-case schedule', () => {
  it('walks exactly the given rungs in order, skipping those above --max-concurrency', () => {
    const results = walk(
      { mode: 'fixed', rungs: [1, 5, 10, 20], maxConcurrency: 10, resolution: 1 },
      () => 'pass',
    );
    expect(results.map((r) => r.concurrency)).toEqual([1, 5, 10]);
  });

  it('the worst case bounds every actual adaptive walk', () => {
    const settings = adaptive(64, 2);
    const worst = worstCaseRungs(settings);
    for (let boundary = 0; boundary <= 64; boundary++) {
      expect(walk(settings, (c) => (c <= boundary ? 'pass' : 'fail')).length).toBeLessThanOrEqual(
        worst.rungs,
      );
    }
    expect(
      worstCaseRungs({
        mode: 'fixed',
        rungs: [1, 5, 10, 20, 30, 40, 50, 60],
        maxConcurrency: 60,
        resolution: 1,
      }).rungs,
    ).toBe(8);
  });
});
