/**
 * The tune's chart as a self-contained SVG: instance-hours (x) against the share of windows held
 * inside the SLO (y), one dot per candidate, the Pareto frontier joined and highlighted, the
 * chosen policy ringed, the seed's closed-loop rule and the perfect fleet (a lower bound on
 * instance-hours: a vertical dashed line) marked, the required attainment as a horizontal line.
 * Pure: artifact in, SVG text out (no fonts, scripts or external references).
 */
import type { TuneArtifact, TuneEntry } from '../model/index.js';
import { niceCeiling } from './chart-svg.js';
import { tuneProvenance } from './tune-text.js';

const xml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const f = (n: number): string => (Math.round(n * 100) / 100).toString();

export function renderTuneSvg(a: TuneArtifact, options: { width?: number; height?: number } = {}): string {
  const width = options.width ?? 820;
  const height = options.height ?? 480;
  const margin = { left: 70, right: 180, top: 48, bottom: 56 };
  const plotW = width - margin.left - margin.right;
  const plotH = height - margin.top - margin.bottom;
  const policies = [...a.candidates, a.seed_rule];
  const all = [...policies, a.perfect_fleet];
  const maxX = niceCeiling(Math.max(...all.map((e) => e.score.instance_hours), 0.001));
  const lowest = Math.min(...all.map((e) => e.score.slo_attainment), a.settings.required_slo_attainment);
  // The y axis starts at a round share below the lowest attainment (attainments crowd near 1).
  const minY = Math.max(0, Math.floor(lowest * 10) / 10 - (lowest >= 0.9 ? 0 : 0.1));
  const x = (h: number): number => margin.left + (Math.max(0, Math.min(maxX, h)) / maxX) * plotW;
  const y = (s: number): number =>
    margin.top + plotH - ((Math.max(minY, Math.min(1, s)) - minY) / Math.max(1e-9, 1 - minY)) * plotH;
  const title = `${a.model_name}: ${a.chosen_holds ? `chosen ${a.chosen.label}` : 'no candidate holds the required attainment'}`;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11" role="img" aria-label="${xml(title)}">`,
    `<title>${xml(title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${(margin.left + plotW / 2).toFixed(0)}" y="22" text-anchor="middle" font-size="14">${xml(title)}</text>`,
    `<g class="axes" stroke="#333333"><line x1="${margin.left}" y1="${margin.top + plotH}" x2="${margin.left + plotW}" y2="${margin.top + plotH}"/><line x1="${margin.left}" y1="${margin.top}" x2="${margin.left}" y2="${margin.top + plotH}"/></g>`,
  ];
  for (let i = 0; i <= 5; i++) {
    const v = (maxX / 5) * i;
    out.push(
      `<text x="${f(x(v))}" y="${margin.top + plotH + 16}" text-anchor="middle" fill="#333333">${f(v)}</text>`,
    );
    const s = minY + ((1 - minY) / 5) * i;
    out.push(
      `<text x="${margin.left - 6}" y="${f(y(s) + 4)}" text-anchor="end" fill="#333333">${f(s * 100)} %</text>`,
    );
  }
  out.push(
    `<text x="${(margin.left + plotW / 2).toFixed(0)}" y="${height - 14}" text-anchor="middle">${xml(`instance-hours (${tuneProvenance(a)})`)}</text>`,
    `<text x="16" y="${margin.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${margin.top + plotH / 2})">windows inside the SLO</text>`,
  );
  // The required attainment, and the perfect fleet's lower bound on instance-hours.
  const req = a.settings.required_slo_attainment;
  out.push(
    `<line class="required" x1="${margin.left}" y1="${f(y(req))}" x2="${margin.left + plotW}" y2="${f(y(req))}" stroke="#999999" stroke-dasharray="4 3"/>`,
    `<text x="${margin.left + plotW + 4}" y="${f(y(req) + 4)}" fill="#777777">required ${f(req * 100)} %</text>`,
    `<line class="perfect" x1="${f(x(a.perfect_fleet.score.instance_hours))}" y1="${margin.top}" x2="${f(x(a.perfect_fleet.score.instance_hours))}" y2="${margin.top + plotH}" stroke="#2ca02c" stroke-dasharray="6 3"/>`,
    `<text x="${f(x(a.perfect_fleet.score.instance_hours) + 4)}" y="${margin.top + 12}" fill="#2ca02c">perfect fleet (lower bound)</text>`,
  );
  // The frontier, joined in order of cost.
  const frontier = policies
    .filter((e) => e.pareto)
    .sort((p, q) => p.score.instance_hours - q.score.instance_hours);
  if (frontier.length > 1) {
    out.push(
      `<polyline class="frontier" points="${frontier.map((e) => `${f(x(e.score.instance_hours))},${f(y(e.score.slo_attainment))}`).join(' ')}" fill="none" stroke="#d62728" stroke-width="1.5"/>`,
    );
  }
  const dot = (e: TuneEntry, cls: string, fill: string, r: number): string =>
    `<circle class="${cls}" cx="${f(x(e.score.instance_hours))}" cy="${f(y(e.score.slo_attainment))}" r="${r}" fill="${fill}"><title>${xml(`${e.label}: ${f(e.score.slo_attainment * 100)} % of windows, ${f(e.score.instance_hours)} instance-hours`)}</title></circle>`;
  for (const e of a.candidates)
    out.push(
      dot(e, e.pareto ? 'candidate pareto' : 'candidate', e.pareto ? '#d62728' : '#9ab7d3', e.pareto ? 4 : 3),
    );
  out.push(
    `<rect class="seed-rule" x="${f(x(a.seed_rule.score.instance_hours) - 4)}" y="${f(y(a.seed_rule.score.slo_attainment) - 4)}" width="8" height="8" fill="#ff7f0e"><title>${xml(`seed rule: ${f(a.seed_rule.score.slo_attainment * 100)} % of windows, ${f(a.seed_rule.score.instance_hours)} instance-hours`)}</title></rect>`,
    `<circle class="chosen" cx="${f(x(a.chosen.score.instance_hours))}" cy="${f(y(a.chosen.score.slo_attainment))}" r="8" fill="none" stroke="#000000" stroke-width="1.5"/>`,
  );
  const legend = [
    ['#9ab7d3', 'candidate'],
    ['#d62728', 'Pareto frontier'],
    ['#ff7f0e', 'seed rule'],
    ['#2ca02c', 'perfect fleet'],
    ['#000000', 'chosen (ring)'],
  ];
  legend.forEach(([colour, label], i) => {
    out.push(
      `<text x="${margin.left + plotW + 4}" y="${margin.top + 40 + i * 16}" fill="${colour}">${label}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
