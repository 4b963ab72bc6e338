import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/load/clock.js';
import { constantProfile, scheduleOffsets } from '../../../src/load/open/arrivals.js';
import {
  type GoodputDecide,
  GoodputLadder,
  summarizeGoodput,
  withLimits,
} from '../../../src/load/open/goodput-ladder.js';
import { runOpenRung } from '../../../src/load/open/open-rung.js';
import { simulatedServer } from '../fixtures/simulated-server.js';

const BODY = [new Uint8Array(Buffer.from('{"text":"x"}'))];

async function rung(rate: number, seed = 1) {
  const clock = new VirtualClock();
  const server = simulatedServer({ clock, slots: 2, serviceMs: () => 10 });
  const run = runOpenRung({
    rate,
    seed,
    holdS: 60,
    settleS: 10,
    sloMs: 40,
    transport: server,
    bodies: BODY,
    requestTimeoutMs: 30_000,
    maxOutstanding: 500,
    startAt: 0,
    startAtWall: '2026-11-30T12:00:00.000Z',
    clock,
  });
  await clock.run();
  return run;
}

describe('an open-loop rung for the lambda_max ladder (simulated 2-slot server, 10 ms each)', () => {
  it('hands the decision every arrival of the measure window, settle discarded, samples in intended-send order', async () => {
    const m = await rung(100);
    const expected = [
      ...scheduleOffsets({ process: 'poisson', profile: constantProfile(100, 60), seed: 1 }),
    ].filter((t) => t >= 10_000 && t < 60_000).length;
    expect(m.input.offered).toBe(expected);
    expect(m.input.outcomeCounts.ok).toBe(expected);
    expect(m.input.ttfabIntendedMs).toHaveLength(expected);
    expect(
      m.input.intendedAtMs.every((t, i) => i === 0 || t >= (m.input.intendedAtMs[i - 1] as number)),
    ).toBe(true);
    expect(m.input.intendedAtMs[0] as number).toBeGreaterThanOrEqual(10_000);
    expect(m.histograms.schedule.arrivals).toBeGreaterThan(expected);
    // Light load (rho 0.5): the first audio comes after a quarter of the 10 ms service, plus little queueing.
    expect(m.ttfabIntendedP95Ms as number).toBeGreaterThan(2.5);
    expect(m.ttfabIntendedP95Ms as number).toBeLessThan(20);
  });

  it('drives the ladder to a bracketed lambda_max below the 200/s capacity, with the verdict from the given decision', async () => {
    // A plain point comparison, only to drive the mechanics here: the product's decision comes from src/stats.
    const pointDecision: GoodputDecide = (input) => {
      const sorted = [...input.ttfabIntendedMs].sort((a, b) => a - b);
      const p95 = sorted[Math.ceil(0.95 * sorted.length) - 1] ?? Number.POSITIVE_INFINITY;
      return { verdict: p95 <= input.sloMs ? 'pass' : 'fail', reason: `p95 ${p95.toFixed(1)} ms` };
    };
    const decide = withLimits(pointDecision, { maxOverflowFraction: 0.01, maxErrorFraction: 0.01 });
    const ladder = new GoodputLadder({ startRate: 50, maxRate: 400, minRate: 5, resolution: 0.05 });
    for (let rate = ladder.next(); rate !== null; rate = ladder.next()) {
      const m = await rung(rate);
      ladder.record({ rate, ...decide(m.input) });
    }
    const s = summarizeGoodput(ladder.measured);
    expect(s.bracketed).toBe(true);
    expect(s.lambdaMax).toBeGreaterThan(100);
    expect(s.lambdaMax).toBeLessThan(200);
    expect((s.breachRate as number) - s.lambdaMax).toBeLessThanOrEqual(0.05 * (s.breachRate as number) + 1);
  });
});
