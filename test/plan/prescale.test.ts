import { describe, expect, it } from 'vitest';
import { scheduledActionSchema } from '../../src/model/index.js';
import { dailyCron, fastRises, type PrescaleInput, scheduledActionsFor } from '../../src/plan/prescale.js';

// 2 requests/s until 01:00, then 40: a ramp a policy with T_plan 300 s cannot follow.
const ramp: PrescaleInput = {
  rows: [
    { t_s: 0, rps: 2 },
    { t_s: 3600, rps: 40 },
  ],
  durationS: 7200,
  lambdaSafeRps: 5,
  tPlanS: 300,
  surgeRatio: 1.25,
  failedWindows: [],
  minInstances: 1,
  maxInstances: 20,
  startEpochMs: 0,
};

describe('scheduled pre-scaling', () => {
  it('raises the minimum to ceil(peak / lambda_safe) from the slot whose reach holds the ramp, and lowers it after', () => {
    const actions = scheduledActionsFor(ramp);
    expect(actions).toEqual([
      { name: 'prescale-0045', schedule: 'cron(45 0 * * ? *)', min_capacity: 8, max_capacity: 20 },
      { name: 'prescale-0115', schedule: 'cron(15 1 * * ? *)', min_capacity: 1, max_capacity: 20 },
    ]);
    for (const a of actions) expect(scheduledActionSchema.safeParse(a).success).toBe(true);
  });

  it("places the actions by the trace's start (UTC time of day), not by seconds from the trace's start", () => {
    // Starting at 07:10 UTC, the ramp is at 08:10: only the 08:00 slot reaches it within T_plan.
    const actions = scheduledActionsFor({ ...ramp, startEpochMs: Date.parse('2026-12-01T07:10:00Z') });
    expect(actions.map((a) => [a.schedule, a.min_capacity])).toEqual([
      ['cron(0 8 * * ? *)', 8],
      ['cron(15 8 * * ? *)', 1],
    ]);
  });

  it('derives none for a flat trace the policy held', () => {
    expect(scheduledActionsFor({ ...ramp, rows: [{ t_s: 0, rps: 40 }] })).toEqual([]);
  });

  it('pre-scales where the policy-only simulation missed the SLO, even on a slow ramp', () => {
    const actions = scheduledActionsFor({
      ...ramp,
      rows: [
        { t_s: 0, rps: 10 },
        { t_s: 1800, rps: 12 },
      ],
      failedWindows: [{ startS: 1900, endS: 1910 }],
    });
    // Slots 00:15 (reach to 00:35) and 00:30 hold the failed window: ceil(12 / 5) = 3 instances.
    expect(actions.map((a) => [a.schedule, a.min_capacity])).toEqual([
      ['cron(15 0 * * ? *)', 3],
      ['cron(45 0 * * ? *)', 1],
    ]);
  });

  it('takes the larger need when a time of day recurs on several days (one daily schedule)', () => {
    const day = 86_400;
    const actions = scheduledActionsFor({
      ...ramp,
      rows: [
        { t_s: 0, rps: 2 },
        { t_s: 3600, rps: 30 },
        { t_s: 7200, rps: 2 },
        { t_s: day + 3600, rps: 50 },
        { t_s: day + 7200, rps: 2 },
      ],
      durationS: 2 * day,
    });
    expect(actions.map((a) => [a.schedule, a.min_capacity])).toEqual([
      ['cron(45 0 * * ? *)', 10],
      ['cron(15 1 * * ? *)', 1],
    ]);
  });

  it('finds rises faster than the surge ratio within T_plan, and not slower ones', () => {
    expect(fastRises(ramp.rows, 7200, 300, 1.25)).toEqual([3600]);
    expect(
      fastRises(
        [
          { t_s: 0, rps: 10 },
          { t_s: 600, rps: 12 },
          { t_s: 1200, rps: 14 },
        ],
        1800,
        300,
        1.25,
      ),
    ).toEqual([]);
  });

  it('writes Application Auto Scaling cron in UTC', () => {
    expect(dailyCron(0)).toBe('cron(0 0 * * ? *)');
    expect(dailyCron(23 * 3600 + 45 * 60)).toBe('cron(45 23 * * ? *)');
  });
});
