/**
 * The Q_max curve as a Mermaid `xychart-beta` block (GitHub renders Mermaid in comments and job
 * summaries): p95 TTFAB per ladder rung as a line, the SLO as a flat line, and Q_max as the one
 * bar standing at its rung (xychart has no annotations; the rung's label says `Q_max` too).
 * Only numbers from the artifact reach the chart; labels are built here.
 */
import type { QmaxArtifact } from '../model/index.js';
import { niceCeiling, ttfabCurve } from './chart-svg.js';
import { mermaidText } from './escape-md.js';

const num = (n: number): string => {
  const r = Math.round(n * 10) / 10;
  return Number.isFinite(r) ? `${r}` : '0';
};

export interface MermaidChart {
  /** The fenced ```mermaid block. */
  block: string;
  /** One line saying what each series is (xychart draws no legend). */
  legend: string;
}

export function renderTtfabMermaid(
  qmax: Pick<QmaxArtifact, 'steps' | 'slo_ms' | 'q_max'>,
): MermaidChart | null {
  const points = ttfabCurve(qmax);
  if (points.length === 0) return null;
  const slo = qmax.slo_ms;
  // Far-above-SLO rungs would flatten the curve: the axis stops at 2x the SLO and says so.
  const top = niceCeiling(Math.min(Math.max(slo * 1.1, ...points.map((p) => p.p95Ms)), slo * 2));
  const clipped = points.some((p) => p.p95Ms > top);
  const labels = points.map((p) =>
    p.concurrency === qmax.q_max ? `"${p.concurrency} = Q_max"` : `"${p.concurrency}"`,
  );
  const qmaxRung = points.some((p) => p.concurrency === qmax.q_max);
  const lines = [
    '```mermaid',
    'xychart-beta',
    `    title "${mermaidText(`p95 TTFAB vs concurrency (SLO ${num(slo)} ms, Q_max ${qmax.q_max})`)}"`,
    `    x-axis "concurrency (requests in flight)" [${labels.join(', ')}]`,
    `    y-axis "p95 TTFAB (ms)" 0 --> ${num(top)}`,
  ];
  if (qmaxRung) {
    lines.push(
      `    bar [${points.map((p) => (p.concurrency === qmax.q_max ? num(Math.min(p.p95Ms, top)) : '0')).join(', ')}]`,
    );
  }
  lines.push(`    line [${points.map((p) => num(Math.min(p.p95Ms, top))).join(', ')}]`);
  lines.push(`    line [${points.map(() => num(slo)).join(', ')}]`);
  lines.push('```');
  const legend =
    `Rising line: measured p95 TTFAB per rung; flat line: the SLO (${num(slo)} ms)` +
    (qmaxRung ? `; bar: Q_max = ${qmax.q_max}` : `; Q_max = ${qmax.q_max} (not a charted rung)`) +
    (clipped ? `; values above ${num(top)} ms are drawn at ${num(top)} ms.` : '.');
  return { block: lines.join('\n'), legend };
}
