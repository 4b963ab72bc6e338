/**
 * The drill's reports: the terminal text names every figure's origin and the broken windows; the
 * PR comment section carries the timeline charts and escapes everything that comes from the
 * artifact; the SVG timeline is self-contained and draws the alarm transitions and broken windows.
 */
import { describe, expect, it } from 'vitest';
import { renderDrillChartSvg } from '../../src/report/drill-svg.js';
import { renderDrillReport } from '../../src/report/drill-text.js';
import { renderReport } from '../../src/report/markdown.js';
import { buildDrill, observerWith, type WindowSpec, windowsWith } from '../helpers/drill-data.js';

const failing = () => {
  const replace: Record<number, WindowSpec> = {};
  for (let i = 6; i < 16; i++) replace[i] = { offered: 100, overflow: 20, ttfabMs: 2000 };
  const observer = observerWith({ breachS: 60 });
  // An alarm name from a hostile account: it must render as text.
  observer.alarms[0] = {
    ...(observer.alarms[0] as (typeof observer.alarms)[number]),
    name: '<img src=x> @octocat',
  };
  observer.transitions.push({ alarm: '<img src=x> @octocat', t_s: 61, from: 'OK', to: 'ALARM' });
  return buildDrill({ windows: windowsWith(replace), observer });
};

describe('drill reports', () => {
  it('the terminal report labels each figure (measured, computed, bound) and names the broken windows (prevents a bound read as measured)', () => {
    const passing = buildDrill({
      windows: windowsWith(),
      observer: observerWith({ breachS: 60, scaleOuts: [{ atS: 90, to: 2 }] }),
    });
    const text = renderDrillReport(passing, 'drill.json');
    expect(text).toMatch(/^scalegate drill kokoro-82m: PASS/);
    expect(text).toMatch(/policy lag \(measured\) +30.2 s: surge start 60 s/);
    expect(text).toMatch(/configured 30 s \(datapoints x period, computed from the deployed alarm\)/);
    expect(text).toMatch(/policy lag +60 s \(bound\) vs 30.2 s \(measured\)/);
    expect(text).toMatch(
      /overflow within T_plan of the surge +100.0 % probability \(computed, k = 1.25\) vs no overflow/,
    );
    const fail = renderDrillReport(failing(), null);
    expect(fail).toMatch(/^scalegate drill kokoro-82m: FAIL/);
    expect(fail).toMatch(/broken windows: surge 130-140 s, surge 140-150 s, surge 150-160 s/);
  });

  it('the comment section has the verdict, the timeline as Mermaid charts and escapes what the artifact says (prevents markup from a file in the PR reaching the comment)', () => {
    const md = renderReport({
      modelName: 'kokoro-82m',
      command: 'drill',
      exitCode: 1,
      version: 'test',
      drill: { artifact: failing(), file: 'artifacts/drill-kokoro-82m-g5xlarge-aaaaaaaa.json' },
    });
    expect(md.split('\n')[0]).toBe('## 🛑 scalegate drill · kokoro-82m: **fail** (surge x1.25)');
    expect(md).toContain('### Drill: predicted (plan) vs observed');
    expect(md.match(/```mermaid\nxychart-beta/g)?.length).toBe(3);
    expect(md).toContain('🛑 **broken**');
    expect(md).not.toMatch(/(?<!\\)<img/);
    expect(md).not.toMatch(/@octocat/);
    expect(md).toContain('\\<img src=x\\> @\u200boctocat');
  });

  it('the SVG timeline is self-contained and draws phases, the SLO, alarm transitions and broken windows (prevents a chart that hides the breach)', () => {
    const svg = renderDrillChartSvg(failing());
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).not.toMatch(/<script|href=|<img/);
    expect(svg).toContain('data-phase="surge"');
    expect(svg).toContain('class="slo"');
    expect(svg).toContain('data-to="ALARM"');
    expect(svg.match(/class="window-broken"/g)?.length).toBe(3);
    expect(svg).toContain('&lt;img src=x&gt; @octocat');
  });
});
