/**
 * Built-in traffic shapes (src/sim/shapes.ts): deterministic per seed, the stated peak and mean,
 * and a spec refused with the key and the fix.
 */
import { describe, expect, it } from 'vitest';
import { isUsageError } from '../../src/model/errors.js';
import type { RateRow, Trace } from '../../src/model/trace.js';
import { parseShapeSpec, shapeTrace, simArrivalsOf } from '../../src/sim/shapes.js';

const rowsOf = (trace: Trace): readonly RateRow[] => {
  if (trace.arrivals.kind !== 'rate') throw new Error('rate expected');
  return trace.arrivals.rows;
};

describe('diurnal', () => {
  it('without noise peaks at `peak` at peak_at_h, bottoms at `trough` 12 h away and averages (peak + trough) / 2 (prevents a day curve of the wrong height or phase)', () => {
    const trace = shapeTrace('diurnal:peak=300,trough=60,noise=0,peak_at_h=14');
    expect(trace.ref.peak_rps).toBe(300);
    expect(trace.ref.mean_rps).toBeCloseTo(180, 6);
    expect(trace.ref.duration_s).toBe(86_400);
    const rows = rowsOf(trace);
    const at = (t: number) => rows.find((r) => r.t_s === t)?.rps;
    expect(at(14 * 3600)).toBe(300);
    expect(at(2 * 3600)).toBe(60);
    expect(at(8 * 3600)).toBeCloseTo(180, 6);
    expect(rows.length).toBe(8640);
    expect(simArrivalsOf(trace)).toEqual({ kind: 'rate', rows, durationS: 86_400 });
  });

  it('with noise keeps the mean within a few tenths of a percent and the peak within the noise band (prevents noise that drifts the day)', () => {
    const trace = shapeTrace('diurnal:peak=300,trough=60,noise=0.2,seed=3');
    // 1,440 per-minute factors uniform in [0.8, 1.2]: the mean factor's sd is 0.2/sqrt(3*1440) ~ 0.003.
    expect(Math.abs(trace.ref.mean_rps / 180 - 1)).toBeLessThan(0.012);
    expect(trace.ref.peak_rps).toBeGreaterThan(300 * 1.1);
    expect(trace.ref.peak_rps).toBeLessThanOrEqual(300 * 1.2);
    expect(Math.min(...rowsOf(trace).map((r) => r.rps))).toBeGreaterThanOrEqual(60 * 0.8);
  });

  it('adds the bursts on top: burst_x times the curve for burst_s at seeded times (prevents bursts that never happen or stack)', () => {
    const calm = shapeTrace('diurnal:peak=100,trough=100,noise=0');
    const bursty = shapeTrace('diurnal:peak=100,trough=100,noise=0,bursts=3,burst_x=3,burst_s=600,seed=9');
    expect(calm.ref.mean_rps).toBe(100);
    expect(bursty.ref.peak_rps).toBe(300);
    const burstSeconds = rowsOf(bursty).reduce((sum, r, i, all) => {
      const end = (all[i + 1] as RateRow | undefined)?.t_s ?? 86_400;
      return sum + (r.rps === 300 ? end - r.t_s : 0);
    }, 0);
    // Three bursts of 600 s (less where two overlap): the mean says exactly how long they lasted.
    expect(burstSeconds).toBeGreaterThan(600);
    expect(burstSeconds).toBeLessThanOrEqual(1800);
    expect(bursty.ref.mean_rps).toBeCloseTo(100 + (200 * burstSeconds) / 86_400, 9);
  });

  it('is the same trace for the same seed and another for another seed (prevents a tune that cannot be reproduced)', () => {
    const spec = 'diurnal:peak=300,trough=60,bursts=4,burst_x=2,burst_s=120,seed=7';
    expect(shapeTrace(spec).ref.sha256).toBe(shapeTrace(spec).ref.sha256);
    expect(shapeTrace(spec.replace('seed=7', 'seed=8')).ref.sha256).not.toBe(shapeTrace(spec).ref.sha256);
  });
});

describe('step, ramp and bursts', () => {
  it('step: base, then x times base from at_s for for_s (prevents a step at the wrong time or height)', () => {
    const trace = shapeTrace('step:base=50,x=3,at_s=600,for_s=300,duration_s=1800');
    expect(rowsOf(trace)).toEqual([
      { t_s: 0, rps: 50 },
      { t_s: 600, rps: 150 },
      { t_s: 900, rps: 50 },
    ]);
    expect(trace.ref.peak_rps).toBe(150);
    expect(trace.offered).toBe(50 * 1500 + 150 * 300);
    // for_s 0: the step holds to the end.
    expect(shapeTrace('step:base=50,x=2,at_s=600,duration_s=1800').offered).toBe(50 * 600 + 100 * 1200);
  });

  it('ramp: base until at_s, linear to peak over ramp_s, then peak held (prevents a launch ramp that overshoots or never arrives)', () => {
    const trace = shapeTrace('ramp:base=10,peak=110,at_s=100,ramp_s=100,step_s=10,duration_s=400');
    const rows = rowsOf(trace);
    expect(rows[0]).toEqual({ t_s: 0, rps: 10 });
    expect(rows.at(-1)).toEqual({ t_s: 200, rps: 110 });
    expect(rows.find((r) => r.t_s === 150)?.rps).toBe(60);
    expect(trace.ref.peak_rps).toBe(110);
    // 0..110 s at 10, then 20..100 for 10 s each, then 110 held 200 s.
    expect(trace.offered).toBeCloseTo(
      10 * 110 + (20 + 30 + 40 + 50 + 60 + 70 + 80 + 90 + 100) * 10 + 110 * 200,
      9,
    );
  });

  it('bursts: base, x times base during n bursts of burst_s (prevents a burst count or length other than stated)', () => {
    const trace = shapeTrace('bursts:base=20,x=4,n=3,burst_s=60,duration_s=3600,seed=2');
    const rows = rowsOf(trace);
    const high = rows.filter((r) => r.rps === 80);
    expect(trace.ref.peak_rps).toBe(80);
    expect(high.length).toBeGreaterThanOrEqual(1);
    expect(high.length).toBeLessThanOrEqual(3);
    const burstSeconds = (trace.offered - 20 * 3600) / 60;
    expect(burstSeconds).toBeGreaterThan(60);
    expect(burstSeconds).toBeLessThanOrEqual(180);
    expect(shapeTrace('bursts:base=20,x=4,n=3,burst_s=60,duration_s=3600,seed=2').ref.sha256).toBe(
      trace.ref.sha256,
    );
  });

  it('names the trace by its spec with every default spelled out, so stating a default changes nothing (prevents one traffic under two names)', () => {
    const a = shapeTrace('step:base=50,x=3,at_s=600');
    const b = shapeTrace('step:duration_s=3600, at_s=600,x=3,base=50.0,for_s=0');
    expect(a.ref.source).toBe('shape:step(base=50,x=3,at_s=600,for_s=0,duration_s=3600)');
    expect(b.ref.source).toBe(a.ref.source);
    expect(b.ref.sha256).toBe(a.ref.sha256);
    expect(a.ref.kind).toBe('shape');
    const anchored = shapeTrace('step:base=50,x=3,at_s=600,start=2026-11-30T00:00:00Z');
    expect(anchored.ref.start).toBe('2026-11-30T00:00:00.000Z');
    expect(anchored.ref.source).toContain('start=2026-11-30T00:00:00.000Z');
  });
});

describe('a spec refused (exit 2, naming the key and the fix)', () => {
  const cases: [string, RegExp][] = [
    [
      'weekly:peak=1',
      /--shape names no built-in shape \("weekly"\)\. Give one of diurnal, step, ramp, bursts/,
    ],
    ['diurnal:peak=300,troff=3', /--shape diurnal has no parameter "troff"\. Its parameters: peak, trough/],
    ['diurnal:peak=300', /--shape diurnal needs trough/],
    ['diurnal:peak=300,trough=400', /trough=400 is above peak=300\. Give trough <= peak/],
    ['diurnal:peak=-1,trough=0', /peak=-1 is not a number in 0\.\.1000000/],
    ['diurnal:peak=abc,trough=0', /peak=abc is not a number/],
    ['diurnal:peak=3,trough=1,noise=1.5', /noise=1\.5 is not a number in 0\.\.0\.9/],
    ['diurnal:peak=3,trough=1,bursts=2.5', /bursts=2\.5 is not an integer/],
    ['diurnal:peak=3,trough=1,burst_s=15', /burst_s=15 is not a multiple of step_s=10/],
    ['diurnal:peak=3,trough=1,peak=4', /gives peak twice/],
    ['step:base=1,x=2,at_s=4000', /at_s=4000 is not before the end \(duration_s=3600\)/],
    ['ramp:base=1,peak=2,ramp_s=15', /ramp_s=15 is not a multiple of step_s=10/],
    ['step:base=1,x=2,at_s=5,start=monday', /start=monday is not an ISO time/],
    ['step:base=0,x=2,at_s=5', /gives a rate of 0 throughout/],
  ];
  for (const [spec, expected] of cases) {
    it(`refuses ${spec}`, () => {
      let message = '';
      try {
        shapeTrace(spec, '--shape');
      } catch (e) {
        if (!isUsageError(e)) throw e;
        message = e.message;
      }
      expect(message).toMatch(expected);
    });
  }

  it('names the spec by its place when it is not a flag (`trace shape <spec>`)', () => {
    expect(() => parseShapeSpec('nope')).toThrow(/^the shape: names no built-in shape/);
  });
});
