/**
 * The simulator is the local SageMaker, faster: the same drill (policy, device, start-up, arrival
 * times) run on the local SageMaker and in the fleet simulator must agree second by second. Two
 * policies at once, each on its own local SageMaker, each under a 2 x surge from one instance: the
 * surge-safe policy a plan deploys (target 6 in flight: it scales out 30 s into the surge) and the
 * seed's closed-loop rule (target 37.5: the queue overflows before it scales). A surge that leaves
 * the tracked metric hovering at the target (k = 1.25 at lambda_safe) makes the alarm's timing a
 * coin toss on both sides; `npm run bench:sim-agreement` reports that case too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../commands/local-apply-fixtures.js';
import { type AgreementRun, agreementRun, startAgreementEmulator } from './agreement-harness.js';

let runs: AgreementRun[] = [];
const emulators: Emulator[] = [];

beforeAll(async () => {
  emulators.push(await startAgreementEmulator(), await startAgreementEmulator());
  // 2.5 s windows: a window that straddles the moment the queue tips can go either way on a busy
  // machine; with 28 judged windows one such window costs 3.6 %, not 7 %.
  const phases = { steadyS: 20, surgeS: 50, troughS: 5, windowS: 2.5 };
  runs = await Promise.all([
    agreementRun(emulators[0] as Emulator, {
      policyRule: 'surge-safe',
      steadyShare: 0.5,
      surgeRatio: 2,
      ...phases,
    }),
    agreementRun(emulators[1] as Emulator, {
      policyRule: 'seed',
      steadyShare: 0.55,
      surgeRatio: 2,
      ...phases,
    }),
  ]);
}, 240_000);

afterAll(async () => {
  await Promise.all(emulators.map((e) => e.close()));
});

describe('a drill on the local SageMaker and the same drill simulated', () => {
  it.each([
    ['the surge-safe policy', 0],
    ['the seed closed-loop rule', 1],
  ])(
    '%s: desired and in-service counts within one instance every second, the same scaling activities within one metric period, the same SLO verdict in at least 90 percent of windows (prevents a simulator that scores policies the endpoint runs differently)',
    (_label, index) => {
      const { report, sim, drill } = runs[index] as AgreementRun;
      expect(report.desired.seconds).toBeGreaterThan(60);
      expect(report.desired.withinOne).toBe(1);
      expect(report.inService.seconds).toBeGreaterThan(60);
      expect(report.inService.withinOne).toBeGreaterThanOrEqual(0.95);
      // Both scaled out, the same number of times, each within one 10 s period of the other.
      expect(report.activities.length).toBeGreaterThan(0);
      expect(report.unpairedActivities).toBe(0);
      expect(report.maxActivityDifferenceS).toBeLessThanOrEqual(10);
      // Each activity asks for the same count within one instance (the proportional rule reads a metric both sides measured).
      for (const [k, a] of report.activities.entries()) {
        expect(Math.abs(a.to - (sim.activities[k]?.to ?? -9))).toBeLessThanOrEqual(1);
      }
      expect(report.windows.compared).toBeGreaterThanOrEqual(24);
      expect(report.windows.share).toBeGreaterThanOrEqual(0.9);
      // The verdicts themselves: the seed rule overflows for most of the surge, on both sides.
      if (index === 1) {
        expect(drill.slo_held).toBe(false);
        expect(sim.windows.filter((w) => !w.sloHeld).length).toBeGreaterThanOrEqual(4);
      }
    },
  );
});
