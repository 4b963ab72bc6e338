/**
 * The heartbeat of goodput's rungs and the drill's phases, in simulated time (a VirtualClock: no
 * sleeps): a beat every second of the run with its elapsed time, requests finished and in flight,
 * none after the run ends; rendered as a live line on a terminal and as one line every 20 s in a
 * log, so a run of minutes never goes silent between its rung or phase lines.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/load/clock.js';
import type { Heartbeat } from '../../src/load/heartbeat.js';
import { runDrillLoad } from '../../src/load/open/drill.js';
import { runOpenRung } from '../../src/load/open/open-rung.js';
import {
  createProgressRenderer,
  HEARTBEAT_LOG_S,
  type LoadHeartbeat,
  type ProgressEvent,
} from '../../src/load/progress.js';
import type { DrillPhase } from '../../src/model/index.js';
import { simulatedServer } from './fixtures/simulated-server.js';

const BODY = [new Uint8Array(Buffer.from('{"text":"x"}'))];

describe('a goodput rung beats every second while it runs', () => {
  it('reports elapsed 1..hold s, finished requests that only grow, the engine’s in-flight count, and nothing after the rung (prevents minutes of silence, and a timer left running)', async () => {
    const clock = new VirtualClock();
    // 2 slots of 10 ms at 150/s: busy (rho 0.75), so requests are in flight at most beats.
    const server = simulatedServer({ clock, slots: 2, serviceMs: () => 10 });
    const beats: Heartbeat[] = [];
    const run = runOpenRung({
      rate: 150,
      seed: 3,
      holdS: 30,
      settleS: 5,
      sloMs: 100,
      transport: server,
      bodies: BODY,
      requestTimeoutMs: 30_000,
      maxOutstanding: 500,
      startAt: 0,
      startAtWall: '2026-11-30T12:00:00.000Z',
      clock,
      onHeartbeat: (b) => beats.push({ ...b }),
    });
    await clock.run();
    const m = await run;
    const endedAt = clock.now();
    expect(beats.map((b) => b.elapsedS)).toEqual(Array.from({ length: beats.length }, (_, i) => i + 1));
    // Every second of the 30 s schedule beats, up to the last request.
    expect(beats.length).toBeGreaterThanOrEqual(29);
    expect(beats.length).toBeLessThanOrEqual(31);
    expect(beats.every((b, i) => i === 0 || b.finished >= (beats[i - 1] as Heartbeat).finished)).toBe(true);
    // About 150 requests a second finish: the count tracks the schedule, not a stale zero.
    const at10 = beats[9] as Heartbeat;
    expect(at10.finished).toBeGreaterThan(1300);
    expect(at10.finished).toBeLessThan(1700);
    expect(beats.some((b) => b.inFlight > 0)).toBe(true);
    expect(m.histograms.schedule.arrivals).toBeGreaterThanOrEqual((beats.at(-1) as Heartbeat).finished);
    // Nothing beats after the rung: the clock has no event left past its end.
    expect(Math.max(...beats.map((b) => b.elapsedS * 1000))).toBeLessThanOrEqual(endedAt);
  });
});

describe('a drill beats every second of its schedule', () => {
  it('reports each second through the phases (prevents a silent surge phase)', async () => {
    const phases: DrillPhase[] = [
      { name: 'steady', start_s: 0, end_s: 10, rate_rps: 20, rate_source: 'computed: test' },
      { name: 'surge', start_s: 10, end_s: 20, rate_rps: 40, rate_source: 'computed: test' },
    ];
    const clock = new VirtualClock();
    const server = simulatedServer({ clock, slots: 4, serviceMs: () => 30 });
    const beats: Heartbeat[] = [];
    const run = runDrillLoad({
      phases,
      seed: 1,
      shard: { index: 0, count: 1 },
      startAt: 1000,
      startAtWall: '2026-11-30T12:00:00.000Z',
      windowMs: 10_000,
      sloMs: 300,
      transport: server,
      bodies: BODY,
      requestTimeoutMs: 10_000,
      maxOutstanding: 10_000,
      clock,
      onHeartbeat: (b) => beats.push({ ...b }),
    });
    await clock.run();
    const load = await run;
    expect(beats.slice(0, 20).map((b) => b.elapsedS)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const finishedBy = (s: number) => (beats[s - 1] as Heartbeat).finished;
    // ~20/s in the steady phase, ~40/s in the surge: the pulse follows the schedule.
    expect(finishedBy(10)).toBeGreaterThan(120);
    expect(finishedBy(10)).toBeLessThan(280);
    expect(finishedBy(20) - finishedBy(10)).toBeGreaterThan(finishedBy(10));
    expect((beats.at(-1) as Heartbeat).finished).toBeLessThanOrEqual(load.summary.sent);
  });
});

const beat = (label: string, elapsedS: number, totalS = 60): ProgressEvent => ({
  type: 'load-heartbeat',
  label,
  totalS,
  elapsedS,
  finished: elapsedS * 10,
  inFlight: 3,
});

function render(isTTY: boolean, events: ProgressEvent[], env: NodeJS.ProcessEnv = {}): string {
  let text = '';
  const sink = createProgressRenderer({ write: (t: string) => (text += t), isTTY }, env);
  for (const e of events) sink(e);
  return text;
}

describe('the heartbeat on stderr', () => {
  it(`prints one line every ${HEARTBEAT_LOG_S} s of a rung where nothing is live (a log, GitHub Actions), counting each rung from its own start`, () => {
    const events = [
      ...Array.from({ length: 60 }, (_, i) => beat('goodput rung 1 (12/s)', i + 1)),
      {
        type: 'rate-end',
        index: 0,
        rateRps: 12,
        verdict: 'pass',
        p95Ms: 100,
        ci: null,
        sentRps: 12,
        goodputRps: 12,
        overflowFraction: 0,
        errorFraction: 0,
        sendLagP99Ms: 1,
        meanInSystem: 1,
      } as ProgressEvent,
      ...Array.from({ length: 45 }, (_, i) => beat('goodput rung 2 (24/s)', i + 1)),
    ];
    for (const env of [{}, { GITHUB_ACTIONS: 'true' }]) {
      const lines = render(false, events, env)
        .split('\n')
        .filter((l) => l.includes('requests finished'));
      expect(lines).toEqual([
        'goodput rung 1 (12/s): 20 of 60 s, 200 requests finished, 3 in flight',
        'goodput rung 1 (12/s): 40 of 60 s, 400 requests finished, 3 in flight',
        'goodput rung 1 (12/s): 60 of 60 s, 600 requests finished, 3 in flight',
        'goodput rung 2 (24/s): 20 of 60 s, 200 requests finished, 3 in flight',
        'goodput rung 2 (24/s): 40 of 60 s, 400 requests finished, 3 in flight',
      ]);
    }
  });

  it('counts a drill phase from its first second, not from the schedule’s start (no burst of lines at each phase change)', () => {
    const events = Array.from({ length: 50 }, (_, i) =>
      beat(i < 30 ? 'drill steady phase' : 'drill surge phase', i + 1, 50),
    );
    const lines = render(false, events).split('\n').filter(Boolean);
    expect(lines.map((l) => `${l.split(':')[0]}${/: (\d+) of/.exec(l)?.[1]}`)).toEqual([
      'drill steady phase20',
      'drill surge phase50',
    ]);
  });

  it('on a terminal: redraws one live line each beat and clears it before the next printed line', () => {
    const events: ProgressEvent[] = [
      beat('drill surge phase', 1),
      beat('drill surge phase', 2),
      { type: 'drill-load-end', sent: 100, dropped: 0, scheduleS: 60 },
    ];
    const text = render(true, events);
    expect(text).toBe(
      '\r\x1b[2Kdrill surge phase: 1 of 60 s, 10 requests finished, 3 in flight' +
        '\r\x1b[2Kdrill surge phase: 2 of 60 s, 20 requests finished, 3 in flight' +
        '\r\x1b[2Kdrill: load done (100 sent, 0 dropped at the client) after 60 s of schedule\n',
    );
  });

  it('is a live-only event: progressLine gives no line for it (the artifact and the summary never carry it)', async () => {
    const { progressLine } = await import('../../src/load/progress.js');
    expect(progressLine(beat('x', 20) as ProgressEvent & LoadHeartbeat)).toBeNull();
  });
});
