/**
 * The drill's timeline as a self-contained SVG: three panels over the same time axis (seconds
 * from the schedule start) with the phases shaded and every alarm transition as a vertical line:
 * (1) offered and achieved requests/s, (2) desired and current instances, with the tracked metric
 * against the scale-out target, (3) p95 TTFAB per window against the SLO, windows outside the SLO
 * in red. The title carries the verdict (whether the SLO held) and what the plan predicted.
 * Pure: artifact in, SVG text out (no fonts, scripts or external references).
 */
import type { DrillArtifact } from '../model/index.js';
import { niceCeiling } from './chart-svg.js';
import { drillVerdictLine } from './drill-verdict.js';

const xml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const f = (n: number): string => (Math.round(n * 100) / 100).toString();

const PHASE_FILL: Record<string, string> = { steady: '#f3f6fa', surge: '#fdf1e6', trough: '#eef7ee' };

export function renderDrillChartSvg(a: DrillArtifact, options: { width?: number } = {}): string {
  const width = options.width ?? 900;
  const panelH = 150;
  const gap = 36;
  const margin = { left: 70, right: 70, top: 48, bottom: 44 };
  const height = margin.top + 3 * panelH + 2 * gap + margin.bottom;
  const plotW = width - margin.left - margin.right;
  const end = Math.max(...a.phases.map((p) => p.end_s), 1);
  const x = (t: number): number => margin.left + (Math.max(0, Math.min(end, t)) / end) * plotW;
  const top = (panel: number): number => margin.top + panel * (panelH + gap);
  const title = `${a.model_name}: surge drill x${a.settings.surge_ratio}: ${drillVerdictLine(a)}`;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11" role="img" aria-label="${xml(title)}">`,
    `<title>${xml(title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="14">${xml(title)}</text>`,
  );

  // Phases, shaded behind every panel.
  for (const p of a.phases) {
    for (let panel = 0; panel < 3; panel++) {
      out.push(
        `<rect class="phase" data-phase="${p.name}" x="${f(x(p.start_s))}" y="${top(panel)}" width="${f(x(p.end_s) - x(p.start_s))}" height="${panelH}" fill="${PHASE_FILL[p.name] ?? '#f8f8f8'}"/>`,
      );
    }
    out.push(
      `<text x="${f((x(p.start_s) + x(p.end_s)) / 2)}" y="${top(0) - 6}" text-anchor="middle" fill="#555555">${p.name}</text>`,
    );
  }

  const axes = (panel: number, maxY: number, label: string, unit: string): ((v: number) => number) => {
    const y0 = top(panel) + panelH;
    const y = (v: number): number => y0 - (Math.max(0, Math.min(v, maxY)) / maxY) * panelH;
    out.push(
      `<g class="axes" stroke="#333333"><line x1="${margin.left}" y1="${y0}" x2="${margin.left + plotW}" y2="${y0}"/><line x1="${margin.left}" y1="${top(panel)}" x2="${margin.left}" y2="${y0}"/></g>`,
    );
    for (let i = 0; i <= 4; i++) {
      const v = (maxY / 4) * i;
      out.push(
        `<text x="${margin.left - 6}" y="${f(y(v) + 4)}" text-anchor="end" fill="#333333">${f(v)}</text>`,
      );
    }
    out.push(
      `<text x="14" y="${top(panel) + panelH / 2}" text-anchor="middle" transform="rotate(-90 14 ${top(panel) + panelH / 2})">${xml(`${label} (${unit})`)}</text>`,
    );
    return y;
  };
  const polyline = (cls: string, pts: Array<[number, number]>, color: string, dash = ''): void => {
    if (pts.length === 0) return;
    out.push(
      `<polyline class="${cls}" points="${pts.map(([px, py]) => `${f(px)},${f(py)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="1.5"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`,
    );
  };
  const step = (pts: Array<[number, number]>): Array<[number, number]> =>
    pts.flatMap(([px, py], i) =>
      i === 0
        ? [[px, py] as [number, number]]
        : [[px, (pts[i - 1] as [number, number])[1]] as [number, number], [px, py] as [number, number]],
    );

  // 1. Rates.
  const seconds = a.load_seconds;
  const maxRate = niceCeiling(
    Math.max(
      1,
      ...seconds.map((s) => Math.max(s.offered, s.completed_ok)),
      ...a.phases.map((p) => p.rate_rps),
    ),
  );
  const yRate = axes(0, maxRate, 'rate', 'requests/s');
  polyline(
    'offered',
    seconds.map((s) => [x(s.t + 0.5), yRate(s.offered)]),
    '#1f77b4',
  );
  polyline(
    'achieved',
    seconds.map((s) => [x(s.t + 0.5), yRate(s.completed_ok)]),
    '#2ca02c',
  );
  polyline(
    'scheduled',
    step(
      a.phases.flatMap(
        (p) =>
          [
            [x(p.start_s), yRate(p.rate_rps)],
            [x(p.end_s), yRate(p.rate_rps)],
          ] as Array<[number, number]>,
      ),
    ),
    '#777777',
    '4 3',
  );
  out.push(
    `<text x="${margin.left + plotW + 4}" y="${top(0) + 12}" fill="#1f77b4">offered</text>`,
    `<text x="${margin.left + plotW + 4}" y="${top(0) + 26}" fill="#2ca02c">achieved</text>`,
    `<text x="${margin.left + plotW + 4}" y="${top(0) + 40}" fill="#777777">schedule</text>`,
  );

  // 2. Instances (copies of a component: what its drill counts), and the tracked metric against
  // the target (scaled to the same panel).
  const obs = a.observer?.observations ?? [];
  const maxInstances = Math.max(1, ...obs.map((o) => Math.max(o.desired ?? 0, o.current ?? 0)));
  const counted = a.inference_component ? 'copies' : 'instances';
  const yInst = axes(1, niceCeiling(maxInstances + 1), counted, 'count');
  const inRange = obs.filter((o) => o.t_s >= 0 && o.t_s <= end);
  polyline(
    'desired',
    step(inRange.filter((o) => o.desired !== null).map((o) => [x(o.t_s), yInst(o.desired as number)])),
    '#ff7f0e',
  );
  polyline(
    'current',
    step(inRange.filter((o) => o.current !== null).map((o) => [x(o.t_s), yInst(o.current as number)])),
    '#9467bd',
    '5 3',
  );
  const metric = a.observer?.metric;
  if (metric && metric.points.length > 0) {
    const target = a.prediction.scaling_target_value;
    const maxMetric = niceCeiling(Math.max(target * 1.2, ...metric.points.map((p) => p.value)));
    const yM = (v: number): number => top(1) + panelH - (Math.min(v, maxMetric) / maxMetric) * panelH;
    polyline(
      'metric',
      step(metric.points.filter((p) => p.t_s >= 0 && p.t_s <= end).map((p) => [x(p.t_s), yM(p.value)])),
      '#8c564b',
    );
    out.push(
      `<line class="target" x1="${margin.left}" y1="${f(yM(target))}" x2="${margin.left + plotW}" y2="${f(yM(target))}" stroke="#8c564b" stroke-dasharray="2 3"/>`,
      `<text x="${margin.left + plotW + 4}" y="${f(yM(target) + 4)}" fill="#8c564b">target ${f(target)}</text>`,
      `<text x="${margin.left + plotW + 4}" y="${top(1) + panelH - 4}" fill="#8c564b">${xml(metric.statistic)} 0-${f(maxMetric)}</text>`,
    );
  }
  out.push(
    `<text x="${margin.left + plotW + 4}" y="${top(1) + 12}" fill="#ff7f0e">desired</text>`,
    `<text x="${margin.left + plotW + 4}" y="${top(1) + 26}" fill="#9467bd">current</text>`,
  );

  // 3. p95 per window against the SLO.
  const slo = a.settings.slo_ms;
  const windows = a.analysis.windows;
  const maxP95 = niceCeiling(Math.min(slo * 3, Math.max(slo * 1.2, ...windows.map((w) => w.p95_ms ?? 0))));
  const yP = axes(2, maxP95, 'p95 TTFAB', 'ms');
  polyline(
    'p95',
    windows
      .filter((w) => w.p95_ms !== null)
      .map((w) => [x((w.start_s + w.end_s) / 2), yP(w.p95_ms as number)]),
    '#1f77b4',
  );
  out.push(
    `<line class="slo" x1="${margin.left}" y1="${f(yP(slo))}" x2="${margin.left + plotW}" y2="${f(yP(slo))}" stroke="#d62728" stroke-dasharray="6 4"/>`,
    `<text x="${margin.left + plotW + 4}" y="${f(yP(slo) + 4)}" fill="#d62728">SLO ${f(slo)}</text>`,
  );
  for (const w of windows) {
    if (w.judged !== 'broken' && w.judged !== 'predicted' && w.overflow === 0 && w.slo_held !== false)
      continue;
    // Red: the SLO broke there (older drills: beyond what the plan predicted); pink: it held.
    const sloBroken = w.slo_held === false || (w.slo_held === undefined && w.judged === 'broken');
    const color = sloBroken ? '#d62728' : '#ff9896';
    const what = [
      w.slo_held === false ? `SLO broken${w.slo_reason ? ` (${w.slo_reason})` : ''}` : '',
      `${w.judged === 'broken' ? 'beyond the plan' : w.judged}${w.reason ? ` (${w.reason})` : ''}`,
    ]
      .filter(Boolean)
      .join('; ');
    out.push(
      `<rect class="window-${w.judged}${w.slo_held === false ? ' window-slo-broken' : ''}" data-window="${w.index}" x="${f(x(w.start_s))}" y="${top(2) + panelH - 6}" width="${f(Math.max(1, x(w.end_s) - x(w.start_s)))}" height="6" fill="${color}"><title>${xml(`${w.phase ?? ''} ${w.start_s}-${w.end_s} s: ${what}`)}</title></rect>`,
    );
  }

  // Alarm transitions across every panel.
  for (const t of a.observer?.transitions ?? []) {
    if (t.t_s < 0 || t.t_s > end) continue;
    const color = t.to === 'ALARM' ? '#d62728' : t.to === 'OK' ? '#2ca02c' : '#7f7f7f';
    out.push(
      `<line class="transition" data-alarm="${xml(t.alarm)}" data-to="${t.to}" x1="${f(x(t.t_s))}" y1="${top(0)}" x2="${f(x(t.t_s))}" y2="${top(2) + panelH}" stroke="${color}" stroke-width="1" stroke-dasharray="1 2"><title>${xml(`${t.alarm}: ${t.from} -> ${t.to} at ${f(t.t_s)} s`)}</title></line>`,
      `<text x="${f(x(t.t_s) + 2)}" y="${top(1) - 4}" fill="${color}" font-size="9">${t.to}</text>`,
    );
  }

  // Time axis.
  const y0 = top(2) + panelH;
  const tick = niceCeiling(end / 8);
  for (let t = 0; t <= end + 1e-9; t += tick) {
    out.push(`<text x="${f(x(t))}" y="${y0 + 14}" text-anchor="middle" fill="#333333">${f(t)}</text>`);
  }
  out.push(
    `<text x="${margin.left + plotW / 2}" y="${height - 10}" text-anchor="middle">seconds from the schedule start</text>`,
  );
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
