/**
 * The seeded Monte Carlo of the surge chain (Gillespie), kept as an independent cross-check of
 * the exact computation in src/stats/surge.ts. Tests only: its cost grows with trials x rates x
 * horizon, which is why `plan` no longer uses it.
 */
import { mulberry32 } from '../../src/stats/prng.js';
import { type ThroughputPoint, throughputAt } from '../../src/stats/surge.js';

export interface MonteCarloInput {
  curve: readonly ThroughputPoint[];
  queueLimit: number;
  arrivalRate: number;
  start: number | Float64Array;
  horizonS: number;
  trials: number;
  seed: number;
}

export function monteCarloOverflow(input: MonteCarloInput): { probability: number; standardError: number } {
  const random = mulberry32(input.seed);
  const limit = Math.max(1, Math.floor(input.queueLimit));
  const departureRate = Array.from({ length: limit + 1 }, (_, n) => throughputAt(input.curve, n));
  const startState = (): number => {
    if (typeof input.start === 'number') return Math.min(limit, Math.max(0, Math.round(input.start)));
    let u = random();
    for (let n = 0; n <= limit; n++) {
      u -= input.start[n] ?? 0;
      if (u < 0) return n;
    }
    return limit;
  };
  let overflows = 0;
  for (let trial = 0; trial < input.trials; trial++) {
    let n = startState();
    let t = 0;
    for (;;) {
      const down = departureRate[n] as number;
      const total = input.arrivalRate + down;
      if (total <= 0) break;
      t += -Math.log(1 - random()) / total;
      if (t > input.horizonS) break;
      if (random() * total < input.arrivalRate) {
        if (n >= limit) {
          overflows++;
          break;
        }
        n++;
      } else {
        n--;
      }
    }
  }
  const p = overflows / input.trials;
  return { probability: p, standardError: Math.sqrt((p * (1 - p)) / input.trials) };
}
