/**
 * The local SageMaker and the pure rules of src/autoscaling, driven by the same scripted metric
 * series through the policy a plan deploys, must change the desired count at the same instants to
 * the same counts for the same causes. The fleet simulator (src/sim) runs the reference loop's
 * rules; this is what fails when the emulator's orchestration and the shared rules drift apart.
 */
import { describe, expect, it } from 'vitest';
import type { SimPolicy } from '../../src/sim/types.js';
import { referenceRun, type ScriptedSeries, scriptedEmulatorRun, simulatorRun } from './scripted-run.js';

/** 2027-01-15T08:00:00Z: a multiple of every period. */
const T0 = 1_800_000_000_000;
const perMinute = (minutes: number, value: number | null) => Array.from({ length: minutes * 6 }, () => value);

const policy: SimPolicy = {
  metric: 'ConcurrentRequestsPerModel',
  targetValue: 4,
  scaleInThreshold: 2,
  scaleOutCooldownS: 60,
  scaleInCooldownS: 120,
  minInstances: 1,
  maxInstances: 8,
  stepScaleOut: null,
  scheduledActions: [],
};

/**
 * Quiet, a surge held long enough for proportional scale-out and its cooldown, a fall to idle
 * with a gap of missing data (counted as low by the scale-in alarm), then quiet: ~45 minutes.
 */
const series: ScriptedSeries = {
  startMs: T0,
  values: [
    ...perMinute(3, 1),
    ...perMinute(4, 10),
    ...perMinute(2, 5),
    ...perMinute(6, 1.5),
    ...perMinute(4, null),
    ...perMinute(24, 0.5),
    ...perMinute(2, 3),
  ],
};

describe('the local SageMaker and the shared rules agree on a scripted series', () => {
  it('target tracking out + the plan step scale-in: same changes at the same instants (prevents the simulator judging a policy AWS runs differently)', async () => {
    const emulator = await scriptedEmulatorRun(series, policy);
    const reference = referenceRun(series, policy);
    // The run exercises both directions, or agreement would prove little.
    expect(emulator.some((e) => e.cause === 'tracking-high')).toBe(true);
    expect(emulator.filter((e) => e.cause === 'scale-in').length).toBeGreaterThanOrEqual(3);
    expect(reference).toEqual(emulator);
    expect(simulatorRun(series, policy)).toEqual(emulator);
  });

  it('with a 90 s start-up and a 1 s evaluation interval, as the local SageMaker ticks (prevents agreement only at one cadence)', async () => {
    const opts = { startupMs: 90_000, tickMs: 1_000 };
    const emulator = await scriptedEmulatorRun(series, policy, opts);
    expect(emulator.length).toBeGreaterThanOrEqual(4);
    expect(referenceRun(series, policy, opts)).toEqual(emulator);
    expect(simulatorRun(series, policy, opts)).toEqual(emulator);
  });

  it('with a step scale-out and scheduled pre-scaling: same changes, scheduled ones included (prevents the two parts of a plan drifting apart)', async () => {
    const full: SimPolicy = {
      ...policy,
      stepScaleOut: {
        threshold: 8,
        period_s: 10,
        evaluation_periods: 2,
        cooldown_s: 60,
        adjustment_type: 'ChangeInCapacity',
        steps: [
          { lower_bound: 0, upper_bound: 4, adjustment: 1 },
          { lower_bound: 4, upper_bound: null, adjustment: 3 },
        ],
      },
      scheduledActions: [
        { name: 'pre-scale', schedule: 'cron(2 8 * * ? *)', min_capacity: 3, max_capacity: 8 },
        // Due in the very tick the step alarm first fires: the order of the two decides the count.
        { name: 'surge', schedule: 'at(2027-01-15T08:05:20)', min_capacity: 5, max_capacity: 8 },
        { name: 'release', schedule: 'cron(20 8 * * ? *)', min_capacity: 1, max_capacity: 8 },
      ],
    };
    const spiky: ScriptedSeries = {
      startMs: T0,
      values: [...perMinute(5, 1), ...perMinute(2, 14), ...perMinute(3, 6), ...perMinute(30, 0.5)],
    };
    const opts = { startupMs: 30_000 };
    const emulator = await scriptedEmulatorRun(spiky, full, opts);
    expect(new Set(emulator.map((e) => e.cause))).toEqual(
      new Set(['scheduled pre-scale', 'scheduled surge', 'step-scale-out', 'scale-in']),
    );
    expect(referenceRun(spiky, full, opts)).toEqual(emulator);
    expect(simulatorRun(spiky, full, opts)).toEqual(emulator);
  });
});
