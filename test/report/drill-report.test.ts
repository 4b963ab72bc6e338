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
    expect(text).toMatch(/SLO held +yes, in all 16 full steady and surge windows/);
    const fail = renderDrillReport(failing(), null);
    expect(fail).toMatch(
      /^scalegate drill kokoro-82m: FAIL — SLO broken in 10 surge windows \(3 beyond what the plan predicted, 7 predicted by it: overflow 100.0 % within T_plan of a x1.25 surge\)/,
    );
    expect(fail).toMatch(/windows outside the SLO: surge 60-70 s, .*surge 150-160 s/);
    expect(fail).toMatch(
      /broken windows \(beyond what the plan predicted\): surge 130-140 s, surge 140-150 s, surge 150-160 s/,
    );
    expect(fail).toMatch(/steady load: 10 requests\/s: X_target 10 requests\/s per instance/);
  });

  it('the terminal report puts the failure first and what the plan predicted beside it, never a pass (prevents "predicted by the plan" reading as a pass)', () => {
    const predicted = buildDrill({
      windows: windowsWith({
        2: { offered: 100, overflow: 20, ttfabMs: 700 },
        3: { offered: 100, overflow: 20, ttfabMs: 700 },
        4: { offered: 100, overflow: 20, ttfabMs: 700 },
      }),
      observer: observerWith({ breachS: 0 }),
    });
    const text = renderDrillReport(predicted, null);
    expect(text).toMatch(
      /^scalegate drill kokoro-82m: FAIL — SLO broken in 3 steady windows \(predicted by the plan: overflow 99.0 % with no surge\)/,
    );
    expect(text).toContain(
      'verdict: fail — SLO broken in 3 steady windows (predicted by the plan: overflow 99.0 % with no surge)',
    );
    expect(text).toMatch(
      /SLO held +no: broken in 3 of 16 full steady and surge windows \(steady 3, surge 0\)/,
    );
    expect(text).toMatch(/as the plan predicted +yes: no window beyond what the plan predicted/);
    expect(text).not.toMatch(/PASS|verdict: pass/);
    const md = renderReport({
      modelName: 'kokoro-82m',
      command: 'drill',
      exitCode: 1,
      version: 'test',
      drill: { artifact: predicted, file: null },
    });
    expect(md.split('\n')[0]).toBe(
      '## 🛑 scalegate drill · kokoro-82m: **fail** — SLO broken in 3 steady windows (predicted by the plan: overflow 99.0 % with no surge) · surge x1.25',
    );
    expect(renderDrillChartSvg(predicted)).toContain(
      '<title>kokoro-82m: surge drill x1.25: fail — SLO broken in 3 steady windows (predicted by the plan: overflow 99.0 % with no surge)</title>',
    );
  });

  it('a drill recorded before the SLO was judged says so instead of claiming the SLO held (prevents an old "predicted = pass" read as a held SLO)', () => {
    const {
      slo_held: _h,
      as_predicted: _p,
      slo: _s,
      ...older
    } = buildDrill({
      windows: windowsWith(),
      observer: null,
    });
    const text = renderDrillReport(older, null);
    expect(text).toMatch(/^scalegate drill kokoro-82m: PASS — recorded before scalegate judged the SLO/);
    expect(text).toMatch(/SLO held +not recorded/);
  });

  it('the comment section has the verdict, the timeline as Mermaid charts and escapes what the artifact says (prevents markup from a file in the PR reaching the comment)', () => {
    const md = renderReport({
      modelName: 'kokoro-82m',
      command: 'drill',
      exitCode: 1,
      version: 'test',
      drill: { artifact: failing(), file: 'artifacts/drill-kokoro-82m-g5xlarge-aaaaaaaa.json' },
    });
    expect(md.split('\n')[0]).toBe(
      '## 🛑 scalegate drill · kokoro-82m: **fail** — SLO broken in 10 surge windows (3 beyond what the plan predicted, 7 predicted by it: overflow 100.0 % within T\\_plan of a x1.25 surge) · surge x1.25',
    );
    expect(md).toContain('### Drill: predicted (plan) vs observed');
    expect(md).toContain(
      '| the SLO held | every full steady and surge window | no: 10 of 16 windows broke it |',
    );
    expect(md.match(/```mermaid\nxychart-beta/g)?.length).toBe(3);
    expect(md).toContain('🛑 **broken**');
    expect(md).toContain('⚠️ **beyond the plan**');
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
    expect(svg.match(/class="window-broken window-slo-broken"/g)?.length).toBe(3);
    expect(svg.match(/window-slo-broken/g)?.length).toBe(10);
    expect(svg).toContain('<title>kokoro-82m: surge drill x1.25: fail — SLO broken in 10 surge windows');
    expect(svg).toContain('&lt;img src=x&gt; @octocat');
  });
});
