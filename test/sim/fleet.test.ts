/**
 * The fleet simulator's data plane and its bookkeeping, on small hand-checkable runs.
 */
import { describe, expect, it } from 'vitest';
import { type FleetSimInput, type SimPolicy, simulateFleet } from '../../src/sim/index.js';

const serial = { lanes: 1, serviceMeanMs: 100, serviceSigma: 0, firstAudioFraction: 1, queueMaxDepth: 10 };
const noStartup = { provisionS: 0, readyS: 0, inServiceAfterReadyS: 0 };
const policy: SimPolicy = {
  metric: 'ConcurrentRequestsPerModel',
  targetValue: 3,
  scaleInThreshold: 1,
  scaleOutCooldownS: 30,
  scaleInCooldownS: 300,
  minInstances: 1,
  maxInstances: 10,
  stepScaleOut: null,
  scheduledActions: [],
};
const constant = (rps: number, durationS: number): FleetSimInput['arrivals'] => ({
  kind: 'rate',
  rows: [{ t_s: 0, rps }],
  durationS,
});
const times = (...t: number[]): FleetSimInput['arrivals'] => ({
  kind: 'timestamps',
  times: Float64Array.from(t),
  durationS: 20,
});
const base = (over: Partial<FleetSimInput>): FleetSimInput => ({
  device: serial,
  startup: noStartup,
  fleet: { kind: 'policy', policy },
  arrivals: constant(5, 600),
  seed: 7,
  sloMs: 1000,
  ...over,
});

describe('simulateFleet', () => {
  it('is deterministic per seed and differs across seeds (prevents scores that cannot be reproduced)', () => {
    const a = simulateFleet(base({}));
    const b = simulateFleet(base({}));
    const c = simulateFleet(base({ seed: 8 }));
    expect(b).toEqual(a);
    expect(c.requests).not.toBe(a.requests);
    // Poisson at 5/s for 600 s: 3000 expected, sd 55.
    expect(Math.abs(a.requests - 3000)).toBeLessThan(220);
  });

  it('serves a FIFO device exactly: waits add up, first audio at the end of service (prevents a wrong TTFAB)', () => {
    // Three arrivals at once on one serial 100 ms instance: TTFAB 100, 200, 300 ms.
    const r = simulateFleet(
      base({
        arrivals: times(1, 1, 1),
        fleet: { kind: 'policy', policy: { ...policy, targetValue: 50 } },
        sloMs: 250,
        windowS: 10,
      }),
    );
    const w = r.windows[0];
    expect(w).toMatchObject({
      offered: 3,
      ok: 3,
      overflow: 0,
      p95Ms: 300,
      withinSloFraction: 2 / 3,
      sloHeld: false,
    });
    expect(r.requestAttainment).toBeCloseTo(2 / 3, 10);
  });

  it('answers 503 beyond the admission limit and counts it as a miss (prevents survivorship in the score)', () => {
    const burst = Array.from({ length: 15 }, () => 2);
    const r = simulateFleet(base({ arrivals: times(...burst), sloMs: 5000 }));
    expect(r.overflows).toBe(5);
    expect(r.windows[0]).toMatchObject({ offered: 15, ok: 10, overflow: 5, p95Ms: null, sloHeld: false });
  });

  it('routes to the least outstanding instance (prevents queueing on one instance while another idles)', () => {
    // Two instances, four simultaneous arrivals: two each, TTFAB 100 and 200 ms on both.
    const r = simulateFleet(
      base({
        arrivals: times(3, 3, 3, 3),
        initialInstances: 2,
        fleet: { kind: 'policy', policy: { ...policy, targetValue: 50 } },
      }),
    );
    expect(r.windows[0]?.p95Ms).toBe(200);
  });

  it('sizes the perfect fleet as ceil(rate / rate per instance) at every moment and bills it (prevents a wrong lower bound)', () => {
    const arrivals: FleetSimInput['arrivals'] = {
      kind: 'rate',
      rows: [
        { t_s: 0, rps: 4 },
        { t_s: 1800, rps: 13 },
      ],
      durationS: 3600,
    };
    const r = simulateFleet(base({ arrivals, fleet: { kind: 'perfect', ratePerInstance: 5 } }));
    // 1 instance for the first half hour, 3 for the second: 0.5 + 1.5 instance-hours (+ drain time).
    expect(r.instanceHours).toBeGreaterThanOrEqual(2);
    expect(r.instanceHours).toBeLessThan(2.001);
    expect(r.peakInstances).toBe(3);
    expect(r.timeline.find((s) => s.t === 1799)?.inService).toBe(1);
    expect(r.timeline.find((s) => s.t === 1800)?.inService).toBe(3);
    expect(r.activities).toEqual([]);
  });

  it('scales out on the tracked metric and serves the new instances only after the start-up (prevents capacity that arrives before AWS could deliver it)', () => {
    const r = simulateFleet(
      base({
        arrivals: constant(25, 300),
        startup: { provisionS: 60, readyS: 20, inServiceAfterReadyS: 10 },
      }),
    );
    const first = r.activities[0];
    expect(first?.direction).toBe('out');
    expect(first?.from).toBe(1);
    // A fresh alarm (missing data not evaluated) decides on the datapoints it has: the first 10 s
    // period above 3 in flight, at the first evaluation after it ends.
    expect(first?.atS).toBe(10);
    const at = first?.atS as number;
    expect(r.timeline.find((s) => s.t === at + 89)?.inService).toBe(1);
    expect(r.timeline.find((s) => s.t === at + 90)?.inService).toBe(first?.to);
    // Billed from the capacity request, not from InService.
    expect(r.instanceHours).toBeGreaterThan((((first?.to as number) - 1) * (300 - at)) / 3600 - 1e-9);
  });

  it('applies a scheduled minimum at its time of day and the one in force at the start (prevents pre-scaling that never lands)', () => {
    const scheduled: SimPolicy = {
      ...policy,
      scheduledActions: [
        { name: 'morning', schedule: 'cron(0 7 * * ? *)', min_capacity: 4, max_capacity: 10 },
        { name: 'night', schedule: 'cron(0 22 * * ? *)', min_capacity: 2, max_capacity: 10 },
      ],
    };
    // Starts at 06:00 UTC: the 22:00 action of the day before is in force (min 2).
    const r = simulateFleet(
      base({
        fleet: { kind: 'policy', policy: scheduled },
        arrivals: constant(1, 7200),
        startEpochMs: 6 * 3_600_000,
      }),
    );
    expect(r.timeline[0]?.desired).toBe(2);
    const morning = r.activities.find((a) => a.direction === 'scheduled');
    expect(morning).toMatchObject({ atS: 3600, from: 2, to: 4, cause: 'scheduled action morning' });
  });

  it('adds the step scale-out on a large excess (prevents a policy whose step is configured but never runs)', () => {
    const stepped: SimPolicy = {
      ...policy,
      targetValue: 1000,
      stepScaleOut: {
        threshold: 4,
        period_s: 10,
        evaluation_periods: 1,
        cooldown_s: 60,
        adjustment_type: 'ChangeInCapacity',
        steps: [{ lower_bound: 0, upper_bound: null, adjustment: 2 }],
      },
    };
    const r = simulateFleet(
      base({ fleet: { kind: 'policy', policy: stepped }, arrivals: constant(25, 120) }),
    );
    expect(r.activities[0]).toMatchObject({ atS: 10, from: 1, to: 3, cause: 'alarm step-scale-out' });
  });

  it('refuses a device without lanes or admission (prevents a run that silently serves nothing)', () => {
    expect(() => simulateFleet(base({ device: { ...serial, lanes: 0 } }))).toThrow(/lanes >= 1/);
  });
});
