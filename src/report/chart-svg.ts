/**
 * The Q_max curve as a self-contained SVG: p95 TTFAB against concurrency (with the p95's
 * confidence interval as error bars when the artifact has one), the SLO as a horizontal line and
 * Q_max marked. Pure: artifact in, SVG text out (no fonts, scripts or external references).
 */
import type { QmaxArtifact } from '../model/index.js';
import { ciLevelLabel } from './labels.js';

export interface CurvePoint {
  concurrency: number;
  p95Ms: number;
  ci: { low: number; high: number } | null;
  /** The interval's level as a label (`97.5 %`): the look the rung ended on. */
  ciLevel: string;
  meetsSlo: boolean;
  /** The rung's verdict (legacy rungs: their point estimate against the SLO). */
  verdict: QmaxArtifact['steps'][number]['verdict'];
  usable: boolean;
}

/** A point's colour comes from its verdict, never from its point estimate: undecided is grey. */
export const VERDICT_COLOUR: Record<CurvePoint['verdict'], string> = {
  pass: '#1f77b4',
  fail: '#d62728',
  undecided: '#7f7f7f',
  uncertain: '#7f7f7f',
};

/**
 * One point per concurrency, from the first ladder run that measured it (later runs repeat the
 * ladder; the plan's repeatability finding compares them). Rungs without a p95 are left out.
 */
export function ttfabCurve(qmax: Pick<QmaxArtifact, 'steps'>): CurvePoint[] {
  const byConcurrency = new Map<number, CurvePoint & { run: number; step: number }>();
  for (const s of qmax.steps) {
    if (s.ttfab_p95_ms === null || !Number.isFinite(s.ttfab_p95_ms)) continue;
    const seen = byConcurrency.get(s.concurrency);
    if (seen && (seen.run < s.run_index || (seen.run === s.run_index && seen.step < s.step_index))) continue;
    byConcurrency.set(s.concurrency, {
      concurrency: s.concurrency,
      p95Ms: s.ttfab_p95_ms,
      ci: s.ttfab_p95_ci_ms ? { low: s.ttfab_p95_ci_ms.low, high: s.ttfab_p95_ci_ms.high } : null,
      ciLevel: ciLevelLabel(s),
      meetsSlo: s.meets_slo,
      verdict: s.verdict,
      usable: s.usable,
      run: s.run_index,
      step: s.step_index,
    });
  }
  return [...byConcurrency.values()]
    .sort((a, b) => a.concurrency - b.concurrency)
    .map(({ run: _run, step: _step, ...point }) => point);
}

/** A round axis maximum above `value` (1, 2, 2.5 or 5 times a power of ten). */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * power >= value) return m * power;
  return 10 * power;
}

const xml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const fmt = (n: number): string => (Math.round(n * 100) / 100).toString();

export interface SvgChartOptions {
  width?: number;
  height?: number;
  title?: string;
}

export function renderTtfabChartSvg(
  qmax: Pick<QmaxArtifact, 'steps' | 'slo_ms' | 'q_max' | 'model_name'>,
  options: SvgChartOptions = {},
): string {
  const width = options.width ?? 720;
  const height = options.height ?? 420;
  const margin = { left: 70, right: 24, top: 44, bottom: 56 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const points = ttfabCurve(qmax);
  const maxC = Math.max(1, ...points.map((p) => p.concurrency));
  const maxY = niceCeiling(
    Math.max(qmax.slo_ms * 1.1, ...points.map((p) => Math.max(p.p95Ms, p.ci?.high ?? 0))),
  );
  const x = (c: number): number => margin.left + (c / maxC) * plotW;
  const y = (ms: number): number => margin.top + plotH - (Math.min(ms, maxY) / maxY) * plotH;
  const title = options.title ?? `${qmax.model_name}: p95 TTFAB vs concurrency`;

  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12" role="img" aria-label="${xml(title)}">`,
  );
  parts.push(`<title>${xml(title)}</title>`);
  parts.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`);
  parts.push(`<text x="${width / 2}" y="24" text-anchor="middle" font-size="15">${xml(title)}</text>`);

  // Axes and ticks.
  const x0 = margin.left;
  const y0 = margin.top + plotH;
  parts.push(`<g class="axes" stroke="#333333" stroke-width="1">`);
  parts.push(`<line x1="${x0}" y1="${y0}" x2="${x0 + plotW}" y2="${y0}"/>`);
  parts.push(`<line x1="${x0}" y1="${margin.top}" x2="${x0}" y2="${y0}"/>`);
  parts.push('</g>');
  parts.push('<g class="ticks" fill="#333333">');
  for (let i = 0; i <= 5; i++) {
    const v = (maxY / 5) * i;
    parts.push(
      `<text x="${x0 - 8}" y="${fmt(y(v) + 4)}" text-anchor="end">${fmt(v)}</text>`,
      `<line x1="${x0}" y1="${fmt(y(v))}" x2="${x0 + plotW}" y2="${fmt(y(v))}" stroke="#e5e5e5"/>`,
    );
  }
  for (const p of points) {
    parts.push(
      `<text x="${fmt(x(p.concurrency))}" y="${y0 + 16}" text-anchor="middle">${p.concurrency}</text>`,
    );
  }
  parts.push('</g>');
  parts.push(
    `<text x="${x0 + plotW / 2}" y="${height - 14}" text-anchor="middle">concurrency (requests in flight)</text>`,
  );
  parts.push(
    `<text x="16" y="${margin.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${margin.top + plotH / 2})">p95 TTFAB (ms)</text>`,
  );

  // SLO line.
  parts.push(
    `<g class="slo"><line x1="${x0}" y1="${fmt(y(qmax.slo_ms))}" x2="${x0 + plotW}" y2="${fmt(y(qmax.slo_ms))}" stroke="#d62728" stroke-dasharray="6 4" stroke-width="1.5"/>`,
    `<text x="${x0 + plotW - 4}" y="${fmt(y(qmax.slo_ms) - 6)}" text-anchor="end" fill="#d62728">SLO ${fmt(qmax.slo_ms)} ms</text></g>`,
  );

  // Q_max marker.
  if (qmax.q_max > 0) {
    const qx = fmt(x(qmax.q_max));
    parts.push(
      `<g class="qmax"><line x1="${qx}" y1="${margin.top}" x2="${qx}" y2="${y0}" stroke="#2ca02c" stroke-dasharray="3 3" stroke-width="1.5"/>`,
      `<text x="${qx}" y="${margin.top - 4}" text-anchor="middle" fill="#2ca02c">Q_max ${qmax.q_max}</text></g>`,
    );
  }

  // Error bars, the curve and its points.
  parts.push('<g class="ci" stroke="#1f77b4" stroke-width="1">');
  for (const p of points) {
    if (!p.ci) continue;
    const px = fmt(x(p.concurrency));
    parts.push(
      `<line x1="${px}" y1="${fmt(y(p.ci.low))}" x2="${px}" y2="${fmt(y(p.ci.high))}" data-concurrency="${p.concurrency}" data-ci-low="${fmt(p.ci.low)}" data-ci-high="${fmt(p.ci.high)}"/>`,
    );
    for (const v of [p.ci.low, p.ci.high]) {
      parts.push(
        `<line x1="${fmt(x(p.concurrency) - 4)}" y1="${fmt(y(v))}" x2="${fmt(x(p.concurrency) + 4)}" y2="${fmt(y(v))}"/>`,
      );
    }
  }
  parts.push('</g>');
  if (points.length > 0) {
    const path = points.map((p) => `${fmt(x(p.concurrency))},${fmt(y(p.p95Ms))}`).join(' ');
    parts.push(`<polyline class="curve" points="${path}" fill="none" stroke="#1f77b4" stroke-width="2"/>`);
  }
  parts.push('<g class="points">');
  for (const p of points) {
    const color = VERDICT_COLOUR[p.verdict];
    parts.push(
      `<circle cx="${fmt(x(p.concurrency))}" cy="${fmt(y(p.p95Ms))}" r="4" fill="${p.usable ? color : '#ffffff'}" stroke="${color}" data-concurrency="${p.concurrency}" data-p95-ms="${fmt(p.p95Ms)}"><title>concurrency ${p.concurrency}: p95 TTFAB ${fmt(p.p95Ms)} ms${p.ci ? ` (${p.ciLevel} CI ${fmt(p.ci.low)}-${fmt(p.ci.high)})` : ''}: ${p.verdict}${p.usable ? '' : ' (unusable rung)'}</title></circle>`,
    );
  }
  parts.push('</g>');
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
