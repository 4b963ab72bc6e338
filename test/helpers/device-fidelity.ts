/**
 * A ladder measured on an emulated device beside the real ladder it was derived from, rung by rung:
 * p95 TTFAB and throughput, with the emulated figures brought back to the device's own time (p95
 * divided by the time scale, throughput multiplied by it). Shared by the device tests and
 * `npm run bench:device`.
 */
import type { QmaxArtifact, QmaxStep } from '../../src/model/index.js';

export interface FidelityRow {
  concurrency: number;
  realP50Ms: number;
  /** Emulated p50 / time scale. */
  emulatedP50Ms: number;
  p50Ratio: number;
  realP95Ms: number;
  /** Emulated p95 / time scale. */
  emulatedP95Ms: number;
  p95Ratio: number;
  realRps: number;
  /** Emulated throughput x time scale. */
  emulatedRps: number;
  rpsRatio: number;
}

const byConcurrency = (steps: QmaxStep[]) => new Map(steps.map((s) => [s.concurrency, s]));

export function fidelityRows(real: QmaxArtifact, emulated: QmaxArtifact, timeScale: number): FidelityRow[] {
  const realSteps = byConcurrency(real.steps);
  const rows: FidelityRow[] = [];
  for (const step of emulated.steps) {
    const ref = realSteps.get(step.concurrency);
    if (!ref || ref.ttfab_p95_ms === null || step.ttfab_p95_ms === null) continue;
    if (ref.ttfab_p50_ms === null || step.ttfab_p50_ms === null) continue;
    const emulatedP95Ms = step.ttfab_p95_ms / timeScale;
    const emulatedP50Ms = step.ttfab_p50_ms / timeScale;
    const emulatedRps = step.achieved_rps * timeScale;
    rows.push({
      concurrency: step.concurrency,
      realP50Ms: ref.ttfab_p50_ms,
      emulatedP50Ms,
      p50Ratio: emulatedP50Ms / ref.ttfab_p50_ms,
      realP95Ms: ref.ttfab_p95_ms,
      emulatedP95Ms,
      p95Ratio: emulatedP95Ms / ref.ttfab_p95_ms,
      realRps: ref.achieved_rps,
      emulatedRps,
      rpsRatio: emulatedRps / ref.achieved_rps,
    });
  }
  return rows;
}

export function formatFidelityTable(rows: FidelityRow[]): string {
  const pct = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(1)} %`;
  const lines = [
    'rung   real p95 ms  emulated p95 ms  diff      real req/s  emulated req/s  diff',
    ...rows.map(
      (r) =>
        `${String(r.concurrency).padStart(4)}  ${r.realP95Ms.toFixed(1).padStart(12)}  ${r.emulatedP95Ms.toFixed(1).padStart(15)}  ${pct(r.p95Ratio).padStart(8)}  ` +
        `${r.realRps.toFixed(2).padStart(10)}  ${r.emulatedRps.toFixed(2).padStart(14)}  ${pct(r.rpsRatio).padStart(8)}`,
    ),
  ];
  return lines.join('\n');
}
