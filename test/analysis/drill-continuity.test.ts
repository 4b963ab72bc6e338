/**
 * The drill judged on playback continuity too: with an underrun SLO a full steady or surge
 * window breaks when its stall p95 exceeds it (first audio fine or not); slo_held means both
 * held; the stall p95 of each phase is recorded and shown, labelled measured.
 */
import { describe, expect, it } from 'vitest';
import { drillSection } from '../../src/report/drill-markdown.js';
import { renderDrillReport } from '../../src/report/drill-text.js';
import { buildDrill, observerWith, okWindow, type WindowSpec, windowsWith } from '../helpers/drill-data.js';

const streaming = (stallMs: number): WindowSpec => ({ ...okWindow(), stallMs });
/** Every window streams without a stall except surge windows 8 and 9, which stall 500 ms a stream. */
const windows = windowsWith(
  Object.fromEntries(
    Array.from({ length: 18 }, (_, i) => [i, streaming(i === 8 || i === 9 ? 500 : 0)] as const),
  ),
);
const observer = observerWith({ breachS: 60, scaleOuts: [{ atS: 90, to: 2 }] });

describe('the drill with an underrun SLO', () => {
  it('breaks the windows whose stall p95 exceeds the underrun SLO though first audio held there, and fails the drill (prevents a stuttering surge passing on first audio alone)', () => {
    const drill = buildDrill({ windows, observer, underrunSloMs: 200 });
    expect(drill.slo_held).toBe(false);
    expect(drill.verdict).toBe('fail');
    expect(drill.slo?.broken_windows).toEqual([8, 9]);
    expect(drill.slo?.underrun_slo_ms).toBe(200);
    const w8 = drill.analysis.windows[8];
    expect(w8).toMatchObject({ over_underrun_slo: true, slo_held: false });
    expect(w8?.p95_ms).toBeCloseTo(100, 0);
    expect(w8?.stall_p95_ms).toBeCloseTo(500, 0);
    expect(w8?.slo_reason).toMatch(/stall p95 500(\.\d)? ms > underrun SLO 200 ms/);
    expect(drill.analysis.windows[7]).toMatchObject({
      stall_p95_ms: 0,
      over_underrun_slo: false,
      slo_held: true,
    });
    // Per phase: steady streams never stalled; the surge's 20 of 100 windows' streams (2 of 10 windows) stall 500 ms.
    expect(drill.slo?.stall_p95_by_phase?.steady).toBe(0);
    expect(drill.slo?.stall_p95_by_phase?.surge).toBeCloseTo(500, 0);
  });

  it('counts failed arrivals as stall misses: a window with over 5 % failures has no finite stall p95 and breaks (prevents survivorship)', () => {
    const failing = windowsWith(
      Object.fromEntries(
        Array.from(
          { length: 18 },
          (_, i) => [i, i === 3 ? { ...streaming(0), errors: 6 } : streaming(0)] as const,
        ),
      ),
    );
    const drill = buildDrill({ windows: failing, observer, underrunSloMs: 200 });
    expect(drill.analysis.windows[3]).toMatchObject({
      stall_p95_ms: null,
      over_underrun_slo: true,
      slo_held: false,
    });
  });

  it('without an underrun SLO, records the stall p95 (measured) but judges first audio alone: the drill holds', () => {
    const drill = buildDrill({ windows, observer });
    expect(drill.slo_held).toBe(true);
    expect(drill.analysis.windows[8]?.over_underrun_slo).toBeUndefined();
    expect(drill.analysis.windows[8]?.stall_p95_ms).toBeCloseTo(500, 0);
    expect(drill.slo?.stall_p95_by_phase?.surge).toBeCloseTo(500, 0);
  });

  it('shows the stall p95 of each phase in the terminal report and the markdown, with its provenance and whether it was judged', () => {
    const judged = buildDrill({ windows, observer, underrunSloMs: 200 });
    const text = renderDrillReport(judged, null);
    expect(text).toMatch(
      /playback stall p95 by phase +steady 0\.0 ms, surge 50\d\.\d ms, trough 0\.0 ms \(measured\); underrun SLO 200 ms/,
    );
    expect(text).toMatch(/stall of its multi-chunk streams at most 200 ms/);
    const md = drillSection({ artifact: judged, file: null }).join('\n');
    expect(md).toMatch(
      /playback stall p95 by phase \| \\<= 200 ms \(underrun SLO\) \| steady 0\.0 ms, surge 50\d\.\d ms/,
    );
    expect(renderDrillReport(buildDrill({ windows, observer }), null)).toMatch(
      /no underrun SLO: measured, not judged/,
    );
  });
});
