/**
 * The self-contained SVG chart (used by the local rehearsal's report): well-formed XML, one
 * point per ladder rung at the measured p95, CI error bars when measured, the SLO line and
 * Q_max marked, and nothing from the artifact able to break out of the markup.
 */
import { describe, expect, it } from 'vitest';
import { readArtifact } from '../../src/model/index.js';
import { niceCeiling, renderTtfabChartSvg, ttfabCurve } from '../../src/report/chart-svg.js';
import { anchorQmaxFile } from '../helpers/anchor.js';

const anchor = readArtifact('qmax', anchorQmaxFile);

interface Element {
  name: string;
  attrs: Record<string, string>;
  children: Element[];
  text: string;
}

/** A strict little XML parser: throws on anything not well-formed (enough for SVG we write). */
function parseXml(xml: string): Element {
  const root: Element = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: Element[] = [root];
  const token =
    /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<\/([A-Za-z][\w:.-]*)\s*>|<([A-Za-z][\w:.-]*)((?:\s+[A-Za-z_:][\w:.-]*="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  for (let m = token.exec(xml); m; m = token.exec(xml)) {
    const [, close, open, attrText, selfClose, text, stray] = m;
    const top = stack[stack.length - 1] as Element;
    if (stray) throw new Error(`stray '<' at ${m.index}: ${xml.slice(m.index, m.index + 40)}`);
    if (text !== undefined) {
      if (/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i.test(text))
        throw new Error(`bad entity in ${text}`);
      top.text += text;
    } else if (close) {
      if (top.name !== close) throw new Error(`</${close}> closes <${top.name}>`);
      stack.pop();
    } else if (open) {
      const attrs: Record<string, string> = {};
      for (const a of (attrText ?? '').matchAll(/([A-Za-z_:][\w:.-]*)="([^"]*)"/g)) {
        if ((a[1] as string) in attrs) throw new Error(`duplicate attribute ${a[1]}`);
        attrs[a[1] as string] = a[2] as string;
      }
      const el: Element = { name: open, attrs, children: [], text: '' };
      top.children.push(el);
      if (!selfClose) stack.push(el);
    }
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1]?.name}>`);
  const elements = root.children;
  if (elements.length !== 1) throw new Error('more than one root element');
  return elements[0] as Element;
}

function all(el: Element, name: string): Element[] {
  return [...(el.name === name ? [el] : []), ...el.children.flatMap((c) => all(c, name))];
}

const withClass = (el: Element, cls: string): Element => {
  const found = all(el, 'g').find((g) => g.attrs.class === cls);
  if (!found) throw new Error(`no <g class="${cls}">`);
  return found;
};

describe('SVG chart of p95 TTFAB against concurrency', () => {
  it('is well-formed, self-contained SVG (a broken file would not open in the rehearsal report)', () => {
    const svg = renderTtfabChartSvg(anchor);
    const root = parseXml(svg);
    expect(root.name).toBe('svg');
    expect(root.attrs.xmlns).toBe('http://www.w3.org/2000/svg');
    expect(svg).not.toMatch(/<script|href=|url\(/i);
  });

  it('plots one point per rung at its measured p95, left to right by concurrency', () => {
    const root = parseXml(renderTtfabChartSvg(anchor));
    const points = all(withClass(root, 'points'), 'circle');
    expect(points.map((p) => Number(p.attrs['data-concurrency']))).toEqual([1, 5, 10, 20, 30, 40, 50, 60]);
    expect(points.map((p) => Number(p.attrs['data-p95-ms']))).toEqual([
      65.37, 286.17, 568.49, 1129.32, 1689.8, 2245, 2805.66, 3374.78,
    ]);
    const xs = points.map((p) => Number(p.attrs.cx));
    const ys = points.map((p) => Number(p.attrs.cy));
    expect([...xs].sort((a, b) => a - b)).toEqual(xs);
    // Higher latency is drawn higher (smaller y): the anchor curve rises monotonically.
    expect([...ys].sort((a, b) => b - a)).toEqual(ys);
    // The breach at 60 is drawn as a failing point.
    expect(points[7]?.attrs.stroke).toBe('#d62728');
    expect(points[6]?.attrs.stroke).toBe('#1f77b4');
  });

  it('colours a point by its verdict, not its point estimate: an undecided rung under the SLO is grey, never a pass', () => {
    const undecided = {
      ...anchor,
      steps: anchor.steps.map((s) =>
        s.concurrency === 40 ? { ...s, verdict: 'undecided' as const, meets_slo: true } : s,
      ),
    };
    const points = all(withClass(parseXml(renderTtfabChartSvg(undecided)), 'points'), 'circle');
    const at40 = points.find((p) => p.attrs['data-concurrency'] === '40');
    expect(at40?.attrs.stroke).toBe('#7f7f7f');
    expect(all(at40 as Element, 'title')[0]?.text).toContain(': undecided');
  });

  it('draws the SLO line at the SLO and marks Q_max at its rung', () => {
    const root = parseXml(renderTtfabChartSvg(anchor));
    const points = all(withClass(root, 'points'), 'circle');
    const slo = all(withClass(root, 'slo'), 'line')[0];
    const sloText = all(withClass(root, 'slo'), 'text')[0];
    expect(sloText?.text).toBe('SLO 3000 ms');
    // SLO 3000 lies between the p95 at 50 (2805.7) and at 60 (3374.8).
    expect(Number(slo?.attrs.y1)).toBeLessThan(Number(points[6]?.attrs.cy));
    expect(Number(slo?.attrs.y1)).toBeGreaterThan(Number(points[7]?.attrs.cy));
    const q = withClass(root, 'qmax');
    expect(all(q, 'text')[0]?.text).toBe('Q_max 50');
    expect(all(q, 'line')[0]?.attrs.x1).toBe(points[6]?.attrs.cx);
  });

  it('draws the p95 confidence interval as error bars when the artifact has one', () => {
    const q = structuredClone(anchor);
    for (const s of q.steps) {
      if (s.ttfab_p95_ms !== null)
        s.ttfab_p95_ci_ms = { low: s.ttfab_p95_ms * 0.9, high: s.ttfab_p95_ms * 1.1 };
    }
    const root = parseXml(renderTtfabChartSvg(q));
    const bars = all(withClass(root, 'ci'), 'line').filter((l) => l.attrs['data-concurrency']);
    expect(bars).toHaveLength(8);
    const at50 = bars.find((b) => b.attrs['data-concurrency'] === '50');
    expect(Number(at50?.attrs['data-ci-low'])).toBeCloseTo(2525.1, 1);
    expect(Number(at50?.attrs['data-ci-high'])).toBeCloseTo(3086.23, 1);
    // The anchor (legacy) has no intervals: no bars drawn.
    expect(all(withClass(parseXml(renderTtfabChartSvg(anchor)), 'ci'), 'line')).toHaveLength(0);
  });

  it('escapes a hostile model name (no markup injection into the SVG)', () => {
    const q = { ...anchor, model_name: '"><script>alert(1)</script><x a="' };
    const svg = renderTtfabChartSvg(q);
    const root = parseXml(svg);
    expect(all(root, 'script')).toHaveLength(0);
    expect(all(root, 'title')[0]?.text).toContain('&lt;script&gt;');
  });

  it('keeps the first ladder run’s point when rungs repeat, and rounds the axis up', () => {
    const q = structuredClone(anchor);
    const repeat = structuredClone(q.steps[1]);
    if (!repeat) throw new Error('anchor has rungs');
    repeat.run_index = 1;
    repeat.ttfab_p95_ms = 9999;
    q.steps.push(repeat);
    expect(ttfabCurve(q).find((p) => p.concurrency === 5)?.p95Ms).toBeCloseTo(286.17, 1);
    expect(niceCeiling(3374.8)).toBe(5000);
    expect(niceCeiling(2100)).toBe(2500);
    expect(niceCeiling(0)).toBe(1);
  });
});
