import { describe, expect, it } from 'vitest';
import {
  classify,
  LadderPlanner,
  type LadderSettings,
  type RungResult,
  summarizeLadder,
  worstCaseRungs,
} from '../../../src/load/closed/ladder.js';
import { mulberry32 } from '../../../src/stats/prng.js';

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
        const summary = summarizeLadder(results, adaptive(128, resolution));
        expect(summary.resolutionMet).toBe(true);
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
    const summary = summarizeLadder(results, adaptive(40, 2));
    expect(summary).toMatchObject({ qMax: 40, bracketed: false, upperBound: null, resolutionMet: false });
  });

  it('reports Q_max 0, bracketed by 1, when even concurrency 1 misses the SLO', () => {
    const results = walk(adaptive(64, 2), () => 'fail');
    expect(results.map((r) => r.concurrency)).toEqual([1]);
    expect(summarizeLadder(results)).toMatchObject({ qMax: 0, bracketed: true, upperBound: 1 });
  });

  it('an undecided rung is no breach: re-measured once, then the search goes on around it, never walking the band', () => {
    const results = walk(adaptive(128, 2), (c) => (c <= 20 ? 'pass' : c <= 32 ? 'undecided' : 'fail'));
    const rungs = results.map((r) => r.concurrency);
    const summary = summarizeLadder(results, adaptive(128, 2));
    expect(summary.qMax).toBeLessThanOrEqual(20);
    expect(summary.bracketed).toBe(true);
    // The bracket is the lowest MEASURED breach, never an undecided rung.
    expect(summary.upperBound).toBeGreaterThan(32);
    for (const c of summary.undecided) expect(rungs.filter((r) => r === c)).toHaveLength(2);
    // The band of 12 undecided concurrencies is not walked rung by rung.
    expect(new Set(rungs.filter((c) => c > 20 && c <= 32)).size).toBeLessThanOrEqual(5);
    expect(summary.resolutionMet).toBe(false);
  });

  it('scripted walk: an unusable pass at 32 and a true limit of 40 end within the resolution of 40', () => {
    const settings = adaptive(128, 2);
    const planner = new LadderPlanner(settings);
    const results: RungResult[] = [];
    for (let c = planner.next(); c !== null; c = planner.next()) {
      const r: RungResult =
        c === 32
          ? { concurrency: c, verdict: 'pass', usable: false }
          : { concurrency: c, verdict: c <= 40 ? 'pass' : 'fail', usable: true };
      planner.record(r);
      results.push(r);
    }
    expect(results.map((r) => r.concurrency)).toEqual([1, 2, 4, 8, 16, 32, 32, 64, 48, 40, 44, 42]);
    const summary = summarizeLadder(results, settings);
    expect(summary).toMatchObject({
      qMax: 40,
      upperBound: 42,
      bracketed: true,
      resolution: 2,
      resolutionMet: true,
    });
  });

  it('records resolution_met false when undecided rungs leave the gap wider than the resolution', () => {
    const settings = adaptive(128, 2);
    // Everything from 33 to 48 straddles the SLO (truly at 40); the search cannot decide there.
    const results = walk(settings, (c) => (c <= 32 ? 'pass' : c <= 48 ? 'undecided' : 'fail'));
    const summary = summarizeLadder(results, settings);
    expect(summary.qMax).toBe(32);
    expect(summary.upperBound as number).toBeGreaterThan(48);
    expect(summary.resolutionMet).toBe(false);
    expect(summary.undecided.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThan(30);
  });

  it('a rung undecided for too few samples (--min-samples) never counts as a pass', () => {
    // The decision reports `undecided` when n < --min-samples; the planner then re-measures it.
    const results = walk(adaptive(16, 1), (c) => (c === 8 ? 'undecided' : c <= 12 ? 'pass' : 'fail'));
    expect(results.filter((r) => r.concurrency === 8)).toHaveLength(2);
    expect(summarizeLadder(results, adaptive(16, 1)).qMax).toBe(12);
  });

  it('reads the older verdict name "uncertain" as undecided', () => {
    expect(classify({ concurrency: 8, verdict: 'uncertain', usable: true })).toBe('indeterminate');
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

describe('the adaptive ladder with a monotone fit of its rungs', () => {
  const withFit = (resolution: number): LadderSettings => ({ ...adaptive(128, resolution), sloMs: 3000 });
  /** A near-deterministic serial device: p95 = 56 c ms, boundary 53.57. */
  const p95 = (c: number) => 56 * c;

  it('places the confirming rungs at the predicted boundary instead of bisecting blind', () => {
    const planner = new LadderPlanner(withFit(2));
    const seen: number[] = [];
    for (let c = planner.next(); c !== null; c = planner.next()) {
      seen.push(c);
      planner.record({
        concurrency: c,
        verdict: p95(c) <= 3000 ? 'pass' : 'fail',
        usable: true,
        p95Ms: p95(c),
      });
    }
    // Blind doubling measured 4, 8, 32 and 64 and bisection 48, 56, 52, 54 after it; the fit grows
    // from 2 to 16 (at most 8 x), aims the breach 15 % above the extrapolated 53.6 (62), and
    // confirms the boundary at 53 (pass) and 55 (breach).
    expect(seen).toEqual([1, 2, 16, 62, 53, 55]);
    const summary = summarizeLadder(
      seen.map((c) => ({ concurrency: c, verdict: p95(c) <= 3000 ? 'pass' : 'fail', usable: true })),
      withFit(2),
    );
    expect(summary).toMatchObject({ qMax: 53, upperBound: 55, resolutionMet: true });
  });

  it('does not measure a rung that ended undecided near the SLO again', () => {
    const planner = new LadderPlanner(withFit(2));
    for (const c of [1, 2, 4, 8, 16, 32])
      planner.record({ concurrency: c, verdict: 'pass', usable: true, p95Ms: p95(c) });
    planner.record({ concurrency: 64, verdict: 'fail', usable: true, p95Ms: p95(64) });
    expect(planner.next()).toBe(53);
    planner.record({ concurrency: 53, verdict: 'undecided', usable: true, p95Ms: p95(53), nearSlo: true });
    expect(planner.next()).not.toBe(53);
  });

  /** 1..32 pass, 64 fails, 53 measured: the planner's answers after `at53`. */
  function afterBoundaryRung(at53: RungResult): { planner: LadderPlanner; results: RungResult[] } {
    const planner = new LadderPlanner(withFit(2));
    const results: RungResult[] = [];
    const add = (r: RungResult) => {
      planner.record(r);
      results.push(r);
    };
    for (const c of [1, 2, 4, 8, 16, 32])
      add({ concurrency: c, verdict: 'pass', usable: true, p95Ms: p95(c) });
    add({ concurrency: 64, verdict: 'fail', usable: true, p95Ms: p95(64) });
    expect(planner.next()).toBe(53);
    add(at53);
    return { planner, results };
  }

  it('a rung held to its end undecided on a valid interval is not measured again (no second chance to pass)', () => {
    const { planner } = afterBoundaryRung({
      concurrency: 53,
      verdict: 'undecided',
      usable: true,
      p95Ms: 2950,
      heldUndecided: true,
    });
    expect(planner.next()).not.toBe(53);
  });

  it('a void undecided rung (no valid interval) is still measured a second time', () => {
    const { planner } = afterBoundaryRung({
      concurrency: 53,
      verdict: 'undecided',
      usable: false,
      p95Ms: 2950,
    });
    expect(planner.next()).toBe(53);
  });

  it('treats a rung undecided at the SLO as the boundary: a breach and a pass within the resolution of it, then stops', () => {
    const { planner, results } = afterBoundaryRung({
      concurrency: 53,
      verdict: 'undecided',
      usable: true,
      p95Ms: 2990,
      nearSlo: true,
    });
    const seen: number[] = [];
    for (let c = planner.next(); c !== null; c = planner.next()) {
      seen.push(c);
      const r: RungResult = {
        concurrency: c,
        verdict: c <= 52 ? 'pass' : 'fail',
        usable: true,
        p95Ms: p95(c),
      };
      planner.record(r);
      results.push(r);
    }
    // The breach side first (a breach decides early), then the pass side; never 52 or 54 too.
    expect(seen).toEqual([55, 51]);
    expect(summarizeLadder(results, withFit(2))).toMatchObject({
      qMax: 51,
      upperBound: 55,
      resolutionMet: true,
      undecided: [53],
    });
  });

  it('does not call the resolution met when the band of SLO rungs is farther than the resolution from Q_max', () => {
    const results: RungResult[] = [
      { concurrency: 48, verdict: 'pass', usable: true },
      { concurrency: 53, verdict: 'undecided', usable: true, nearSlo: true },
      { concurrency: 55, verdict: 'fail', usable: true },
    ];
    expect(summarizeLadder(results, withFit(2)).resolutionMet).toBe(false);
    // A void undecided rung is no evidence of where the boundary is.
    const voidRung: RungResult[] = [
      { concurrency: 51, verdict: 'pass', usable: true },
      { concurrency: 53, verdict: 'undecided', usable: false },
      { concurrency: 55, verdict: 'fail', usable: true },
    ];
    expect(summarizeLadder(voidRung, withFit(2)).resolutionMet).toBe(false);
  });

  it('grows by the fit without overshooting more than growth^3 and falls back to doubling without a rising line', () => {
    const planner = new LadderPlanner(withFit(2));
    planner.record({ concurrency: 1, verdict: 'pass', usable: true, p95Ms: 100 });
    expect(planner.next()).toBe(2);
    // A flat p95 (an idle multi-slot server): no rising line, plain doubling.
    planner.record({ concurrency: 2, verdict: 'pass', usable: true, p95Ms: 100 });
    expect(planner.next()).toBe(4);
    // Rising by 1 ms a request: the line reaches 3000 ms near 2900, capped at 8 x 4.
    planner.record({ concurrency: 4, verdict: 'pass', usable: true, p95Ms: 102 });
    expect(planner.next()).toBe(32);
  });
});

describe('the fit-placed narrowing on curves its fit bends the wrong way', () => {
  const settings: LadderSettings = { ...adaptive(128, 2), sloMs: 3000 };
  /** Walks the planner against a p95 curve; the verdicts follow the boundary (an optional straddle at boundary + 1). */
  function walkCurve(p95: (c: number) => number, boundary: number, straddle: boolean): number[] {
    const planner = new LadderPlanner(settings);
    const seen: number[] = [];
    for (let c = planner.next(); c !== null; c = planner.next()) {
      seen.push(c);
      planner.record({
        concurrency: c,
        verdict: straddle && c === boundary + 1 ? 'undecided' : c <= boundary ? 'pass' : 'fail',
        usable: true,
        p95Ms: p95(c),
      });
    }
    return seen;
  }

  it('a convex p95 curve is not walked one concurrency at a time (prevents the fit crawling from 17 to 35 in 19 rungs)', () => {
    const seen = walkCurve((c) => 3000 * (c / 36.5) ** 3, 36, true);
    // Before: 1, 2, 16, 128, 17, 18, ..., 35, 36, 37, 37, 82, 59, 48, 42, 39, 38 (28 rungs). Now two
    // fit-placed passes (17, 18) are followed by a bisection (73), and so on: 19 rungs.
    expect(seen.length, seen.join(', ')).toBeLessThanOrEqual(19);
    let run = 1;
    for (let i = 1; i < seen.length; i++) {
      run = seen[i] === (seen[i - 1] as number) + 1 ? run + 1 : 1;
      expect(run, seen.join(', ')).toBeLessThan(4);
    }
    expect(
      summarizeLadder(
        seen.map((c) => ({ concurrency: c, verdict: c <= 36 ? 'pass' : 'fail', usable: true })),
        settings,
      ).qMax,
    ).toBe(36);
  });

  it('the dry run worst case bounds the walk over 2000 random increasing p95 curves (prevents a printed worst-case duration the ladder can exceed)', () => {
    const worst = worstCaseRungs(settings).rungs;
    const random = mulberry32(42);
    let longest = 0;
    for (let t = 0; t < 2000; t++) {
      const boundary = Math.floor(random() * 129);
      const power = 0.2 + random() * 4;
      const cumulative = [0];
      for (let c = 1; c <= 129; c++)
        cumulative.push((cumulative[c - 1] as number) + random() ** power + 1e-3);
      const at = (c: number) => cumulative[Math.min(c, 129)] as number;
      const cross = (at(boundary) + at(boundary + 1)) / 2;
      const seen = walkCurve((c) => 3000 * (0.2 + (0.8 * at(c)) / cross), boundary, random() < 0.5);
      longest = Math.max(longest, seen.length);
    }
    expect(longest).toBeLessThanOrEqual(worst);
    // The worst case walks the p95 shapes too: without them it said 20 rungs, and fits walked 28.
    const { sloMs: _slo, ...blind } = settings;
    expect(worst).toBeGreaterThan(worstCaseRungs(blind).rungs);
  });
});
