/**
 * The class of simulated servers the rung decision is calibrated over (src/stats/rung-decision.ts
 * `CALIBRATION`), shared by `npm run bench:coverage` (the whole class) and the coverage test (a
 * reduced one). Pure.
 *
 * - iid: lognormal service, serial (60 ms) and 4-slot (240 ms), CV 0.1 / 0.3 / 0.5.
 * - regime: a serial 60 ms server (CV 0.3) that alternates between normal and 30 % slower spells
 *   (exponential, means slow/normal s: 2/4, 5/10, 10/10). Cells with spells of 20/20, 20/40 and
 *   60/60 s are printed too, marked outside the class: a 120 s hold sees at most three of their
 *   cycles, and no rule judged on one hold can tell a long fast spell from a fast server.
 * - batching: a server answering up to 8 waiting requests together in 100 ms x (1 + 0.15 (k - 1)).
 * - replay: service times drawn from the emulated Kokoro-82M device (one lane, log-normal
 *   55.9 ms, sigma 0.056, from the committed ladder; src/analysis/device-profile.ts), replayed in
 *   order from a seeded start.
 */
import { lognormalSampler, type SimulatedServer } from './closed-loop-sim.js';
import { mulberry32 } from './prng.js';

export interface ClassCell {
  family: 'iid' | 'regime' | 'batching' | 'replay';
  label: string;
  server: SimulatedServer;
  n: number;
  /** false: printed for comparison, outside the class the bound is stated for. */
  inClass: boolean;
}

/** The emulated device's service times (log-normal of mean and shape sigma), deterministic. */
export function deviceServiceTrace(
  device: { service_mean_ms: number; service_sigma: number },
  count: number,
  seed: number,
): Float64Array {
  const cv = Math.sqrt(Math.exp(device.service_sigma ** 2) - 1);
  const draw = lognormalSampler(device.service_mean_ms, cv, mulberry32(seed));
  return Float64Array.from({ length: count }, () => draw());
}

export const REGIME_SPELLS: ReadonlyArray<{ slowS: number; normalS: number; inClass: boolean }> = [
  { slowS: 2, normalS: 4, inClass: true },
  { slowS: 5, normalS: 10, inClass: true },
  { slowS: 10, normalS: 10, inClass: true },
  { slowS: 20, normalS: 20, inClass: false },
  { slowS: 20, normalS: 40, inClass: false },
  { slowS: 60, normalS: 60, inClass: false },
];

export function calibrationClass(
  device: { lanes: number; service_mean_ms: number; service_sigma: number },
  grid: 'full' | 'reduced',
): ClassCell[] {
  const ns = grid === 'full' ? [1, 2, 4, 8, 16, 32, 64] : [1, 16, 64];
  const cells: ClassCell[] = [];
  for (const cv of grid === 'full' ? [0.1, 0.3, 0.5] : [0.3]) {
    for (const [label, slots, mean] of [
      ['serial', 1, 60],
      ['4-slot', 4, 240],
    ] as const) {
      for (const n of ns) {
        cells.push({
          family: 'iid',
          label: `iid ${label} CV ${cv}`,
          server: { slots, meanServiceMs: mean, serviceCv: cv },
          n,
          inClass: true,
        });
      }
    }
  }
  const regimeNs = grid === 'full' ? [1, 4, 16, 64] : [4, 16];
  for (const spell of REGIME_SPELLS) {
    if (grid === 'reduced' && !(spell.slowS === 5 || spell.slowS === 10)) continue;
    if (grid === 'reduced' && !spell.inClass) continue;
    for (const n of regimeNs) {
      cells.push({
        family: 'regime',
        label: `regime ${spell.slowS}/${spell.normalS} s`,
        server: {
          slots: 1,
          meanServiceMs: 60,
          serviceCv: 0.3,
          regime: { slowdown: 1.3, meanSlowS: spell.slowS, meanNormalS: spell.normalS },
        },
        n,
        inClass: spell.inClass,
      });
    }
  }
  for (const n of grid === 'full' ? [1, 4, 16, 64] : [16]) {
    cells.push({
      family: 'batching',
      label: 'batching <= 8',
      server: { slots: 1, meanServiceMs: 100, serviceCv: 0.3, batching: { maxBatch: 8, perItem: 0.15 } },
      n,
      inClass: true,
    });
  }
  const trace = deviceServiceTrace(device, 50_000, 0x6b6f6b);
  for (const n of grid === 'full' ? [1, 8, 32, 53] : [32]) {
    cells.push({
      family: 'replay',
      label: 'Kokoro replay',
      server: {
        slots: device.lanes,
        meanServiceMs: device.service_mean_ms,
        serviceCv: Math.sqrt(Math.exp(device.service_sigma ** 2) - 1),
        trace,
      },
      n,
      inClass: true,
    });
  }
  return cells;
}
