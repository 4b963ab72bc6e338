/**
 * compare's frontier chart as a self-contained SVG: $ per 1M characters at the surge-safe load (x, lower is
 * better) against the SLO margin (y, higher is further from the SLO), one dot per candidate that
 * has both figures, those that do not hold hollow, the Pareto frontier among those that hold
 * joined, the chosen one ringed. Pure: artifact in, SVG text out (no fonts, scripts or references).
 */
import type { CompareArtifact, CompareCandidate } from '../model/index.js';
import { rankingCost } from '../plan/compare.js';
import { niceCeiling } from './chart-svg.js';

const xml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const f = (n: number): string => (Math.round(n * 100) / 100).toString();

const cost = (c: CompareCandidate): number | null => rankingCost(c);
const margin = (c: CompareCandidate): number | null => c.slo_margin.value;

export function renderCompareSvg(
  a: CompareArtifact,
  options: { width?: number; height?: number } = {},
): string {
  const width = options.width ?? 820;
  const height = options.height ?? 480;
  const m = { left: 70, right: 200, top: 48, bottom: 56 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const plotted = a.candidates.filter((c) => cost(c) !== null && margin(c) !== null);
  const maxX = niceCeiling(Math.max(...plotted.map((c) => cost(c) as number), 0.001));
  const lowest = Math.min(0, ...plotted.map((c) => margin(c) as number));
  const minY = Math.floor(lowest * 10) / 10;
  const x = (v: number): number => m.left + (Math.max(0, Math.min(maxX, v)) / maxX) * plotW;
  const y = (v: number): number =>
    m.top + plotH - ((Math.max(minY, Math.min(1, v)) - minY) / (1 - minY)) * plotH;
  const chosen = a.candidates.find((c) => a.chosen !== null && c.file === a.chosen.file) ?? null;
  const title = `${a.model_name}: ${chosen ? `chosen ${chosen.label} (${chosen.instance_type})` : 'no candidate can be chosen'}`;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11" role="img" aria-label="${xml(title)}">`,
    `<title>${xml(title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${(m.left + plotW / 2).toFixed(0)}" y="22" text-anchor="middle" font-size="14">${xml(title)}</text>`,
    `<g class="axes" stroke="#333333"><line x1="${m.left}" y1="${m.top + plotH}" x2="${m.left + plotW}" y2="${m.top + plotH}"/><line x1="${m.left}" y1="${m.top}" x2="${m.left}" y2="${m.top + plotH}"/></g>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const v = (maxX / 5) * i;
    out.push(
      `<text x="${f(x(v))}" y="${m.top + plotH + 16}" text-anchor="middle" fill="#333333">$${f(v)}</text>`,
    );
    const s = minY + ((1 - minY) / 5) * i;
    out.push(
      `<text x="${m.left - 6}" y="${f(y(s) + 4)}" text-anchor="end" fill="#333333">${f(s * 100)} %</text>`,
    );
  }
  out.push(
    `<text x="${(m.left + plotW / 2).toFixed(0)}" y="${height - 14}" text-anchor="middle">$ per 1M characters at the surge-safe load (computed)</text>`,
    `<text x="16" y="${m.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${m.top + plotH / 2})">SLO margin: 1 - lambda_safe / capacity (computed)</text>`,
  );
  const frontier = plotted.filter((c) => c.pareto).sort((p, q) => (cost(p) as number) - (cost(q) as number));
  if (frontier.length > 1) {
    out.push(
      `<polyline class="frontier" points="${frontier.map((c) => `${f(x(cost(c) as number))},${f(y(margin(c) as number))}`).join(' ')}" fill="none" stroke="#d62728" stroke-width="1.5"/>`,
    );
  }
  for (const c of plotted) {
    const cls = ['candidate', c.pareto ? 'pareto' : '', c.holds ? '' : 'fails'].filter(Boolean).join(' ');
    const colour = c.pareto ? '#d62728' : '#1f77b4';
    const fill = c.holds ? colour : 'none';
    const label = `${c.label} ${c.instance_type}: $${f(cost(c) as number)} per 1M characters, margin ${f((margin(c) as number) * 100)} %${c.holds ? '' : ', does not hold'}${c.choosable || !c.holds ? '' : ', not choosable'}`;
    out.push(
      `<circle class="${cls}" cx="${f(x(cost(c) as number))}" cy="${f(y(margin(c) as number))}" r="5" fill="${fill}" stroke="${colour}" stroke-width="1.5"><title>${xml(label)}</title></circle>`,
      `<text x="${f(x(cost(c) as number) + 8)}" y="${f(y(margin(c) as number) - 6)}" fill="#333333">${xml(`${c.label} ${c.instance_type}`)}</text>`,
    );
  }
  if (chosen && cost(chosen) !== null && margin(chosen) !== null) {
    out.push(
      `<circle class="chosen" cx="${f(x(cost(chosen) as number))}" cy="${f(y(margin(chosen) as number))}" r="10" fill="none" stroke="#000000" stroke-width="1.5"/>`,
    );
  }
  const legend = [
    ['#1f77b4', 'candidate (hollow: does not hold)'],
    ['#d62728', 'Pareto frontier'],
    ['#000000', 'chosen (ring)'],
  ];
  legend.forEach(([colour, text], i) => {
    out.push(`<text x="${m.left + plotW + 8}" y="${m.top + 40 + i * 16}" fill="${colour}">${text}</text>`);
  });
  const unplotted = a.candidates.filter((c) => !plotted.includes(c));
  unplotted.forEach((c, i) => {
    out.push(
      `<text x="${m.left + plotW + 8}" y="${m.top + 110 + i * 16}" fill="#777777">${xml(`${c.label}: not plotted (no cost or margin)`)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
