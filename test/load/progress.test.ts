import { describe, expect, it } from 'vitest';
import { createProgressRenderer, type ProgressEvent } from '../../src/load/progress.js';

const summary = {
  runIndex: 0,
  stepIndex: 2,
  concurrency: 8,
  verdict: 'pass',
  p95Ms: 120.4,
  ci: { low: 118, high: 125 },
  achievedRps: 40.1,
  inFlightMean: 7.99,
  seconds: 4.2,
  usable: true,
  reason: null,
};
const events: ProgressEvent[] = [
  { type: 'rung-start', runIndex: 0, stepIndex: 2, concurrency: 8 },
  {
    type: 'rung-tick',
    runIndex: 0,
    stepIndex: 2,
    tick: { concurrency: 8, elapsedS: 1.5, inFlight: 8, samples: 40, liveP95Ms: 119, phase: 'measure' },
  },
  { type: 'rung-end', summary },
];

function render(isTTY: boolean, env: NodeJS.ProcessEnv): string {
  let text = '';
  const sink = createProgressRenderer({ write: (t: string) => (text += t), isTTY }, env);
  for (const e of events) sink(e);
  return text;
}

describe('progress on stderr', () => {
  it('not a terminal: exactly one line per rung, no live updates', () => {
    const text = render(false, {});
    expect(text.split('\n').filter(Boolean)).toEqual([
      'run 1 rung 3 c=8: pass p95 120 ms [118 ms, 125 ms], 40.10 req/s, in-flight 7.99, 4.2 s',
    ]);
  });

  it('a terminal: a live line (rung, elapsed, live p95, in-flight) replaced by the rung summary', () => {
    const text = render(true, {});
    expect(text).toContain('\r\x1b[2Krun 1 rung 3 c=8 measure 1.5 s  p95 119 ms  in-flight 8');
    expect(text.endsWith('in-flight 7.99, 4.2 s\n')).toBe(true);
  });

  it('GitHub Actions: each rung in its own log group', () => {
    const lines = render(true, { GITHUB_ACTIONS: 'true' }).split('\n').filter(Boolean);
    expect(lines[0]).toBe('::group::run 1 rung 3: concurrency 8');
    expect(lines[2]).toBe('::endgroup::');
    expect(lines).toHaveLength(3);
  });
});

describe('typed progress of goodput, ttotal and drill: the lines they print', () => {
  const lines = (events: ProgressEvent[], isTTY = false, env: NodeJS.ProcessEnv = {}): string[] => {
    let text = '';
    const sink = createProgressRenderer({ write: (t: string) => (text += t), isTTY }, env);
    for (const e of events) sink(e);
    return text.split('\n').filter(Boolean);
  };

  it('goodput: a rate starts, then its verdict figures', () => {
    const events: ProgressEvent[] = [
      {
        type: 'rate-start',
        index: 1,
        rateRps: 4,
        holdS: 120,
        settleS: 30,
        seed: 2,
        shard: { index: 0, count: 2 },
      },
      {
        type: 'rate-end',
        index: 1,
        rateRps: 4,
        verdict: 'pass',
        p95Ms: 412.6,
        ci: { low: 400.2, high: 431.9 },
        sentRps: 3.987,
        goodputRps: 3.95,
        overflowFraction: 0.00125,
        errorFraction: 0,
        sendLagP99Ms: 1.2,
        meanInSystem: 1.7,
      },
      {
        type: 'rate-end',
        index: 2,
        rateRps: 8,
        verdict: 'insufficient',
        p95Ms: null,
        ci: null,
        sentRps: 0,
        goodputRps: 0,
        overflowFraction: 0,
        errorFraction: 1,
        sendLagP99Ms: null,
        meanInSystem: 0,
      },
    ];
    expect(lines(events)).toEqual([
      'rung 2: 4/s Poisson for 120 s (settle 30 s), seed 2, shard 0/2',
      'rung 2: 4/s pass: p95 TTFAB 413 ms [400, 432] from the intended send, sent 3.99/s, goodput 3.95/s, overflow 0.13 %, errors 0.00 %, send lag p99 1.2 ms, L 1.7',
      'rung 3: 8/s insufficient: p95 TTFAB - from the intended send, sent 0.00/s, goodput 0.00/s, overflow 0.00 %, errors 100.00 %, send lag p99 - ms, L 0',
    ]);
  });

  it('ttotal: each stage reached', () => {
    const at = Date.parse('2026-01-02T03:04:05.000Z');
    expect(
      lines([
        { type: 'ttotal-stage', stage: 'probe-applied', atMs: at, holdS: 20 },
        { type: 'ttotal-stage', stage: 'desired-set', atMs: at, fromInstances: 1, toInstances: 2 },
        { type: 'ttotal-stage', stage: 'log-stream', name: 'AllTraffic/i-0abc' },
        { type: 'ttotal-stage', stage: 'in-service', atMs: at, instances: 2 },
        { type: 'ttotal-stage', stage: 'recovered', atMs: at, p95Ms: 123.45 },
      ]),
    ).toEqual([
      'ttotal: probe applied at 2026-01-02T03:04:05.000Z; holding 20 s before the trigger',
      'ttotal: desired 1 -> 2 at 2026-01-02T03:04:05.000Z (the clock starts)',
      'ttotal: new instance log stream AllTraffic/i-0abc',
      'ttotal: 2 instances in service at 2026-01-02T03:04:05.000Z',
      'ttotal: traffic recovered from 2026-01-02T03:04:05.000Z (p95 123.5 ms)',
    ]);
  });

  it('drill: the desired count, the schedule, each phase, the end of the load (a fleet change prints nothing)', () => {
    expect(
      lines([
        { type: 'drill-desired', fromInstances: null, toInstances: 1 },
        {
          type: 'drill-schedule',
          phases: [
            { name: 'steady', rateRps: 2, seconds: 60 },
            { name: 'surge', rateRps: 3.5, seconds: 90 },
          ],
          startAt: '2026-01-02T03:04:10.000Z',
          shard: { index: 1, count: 2 },
        },
        { type: 'drill-phase', name: 'surge', rateRps: 3.5, seconds: 90 },
        { type: 'drill-capacity', tS: 95.2, status: 'Updating', desired: 2, current: 1 },
        { type: 'drill-load-end', sent: 400, dropped: 2, scheduleS: 150 },
      ]),
    ).toEqual([
      'drill: setting the desired count n/a -> 1 before the load',
      'drill: steady 2.00/s 60 s, surge 3.50/s 90 s from 2026-01-02T03:04:10.000Z (shard 1/2)',
      'drill: surge phase, 3.50 requests/s for 90 s',
      'drill: load done (400 sent, 2 dropped at the client) after 150 s of schedule',
    ]);
  });

  it('a typed line clears the live line on a terminal and needs no log group on GitHub Actions', () => {
    const tick: ProgressEvent = events[1] as ProgressEvent;
    let text = '';
    const sink = createProgressRenderer({ write: (t: string) => (text += t), isTTY: true }, {});
    sink(tick);
    sink({ type: 'drill-phase', name: 'trough', rateRps: 0.5, seconds: 300 });
    expect(text.endsWith('\r\x1b[2Kdrill: trough phase, 0.50 requests/s for 300 s\n')).toBe(true);
    expect(
      lines([{ type: 'drill-phase', name: 'trough', rateRps: 0.5, seconds: 300 }], true, {
        GITHUB_ACTIONS: 'true',
      }),
    ).toEqual(['drill: trough phase, 0.50 requests/s for 300 s']);
  });
});
