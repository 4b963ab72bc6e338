import { describe, expect, it } from 'vitest';
import {
  type ClientHealthSample,
  combineClientHealth,
  demoteUnhealthyPass,
  judgeClientHealth,
} from '../../src/stats/client-health.js';

const healthy: ClientHealthSample = {
  wallS: 60,
  eventLoopDelayP99Ms: 4,
  cpuShare: 0.3,
  sendLagP99Ms: 12,
  droppedArrivals: 0,
};

describe('the client is part of the measurement', () => {
  it('keeps a pass measured by a client that kept its schedule', () => {
    const h = judgeClientHealth(healthy, 3000);
    expect(h.healthy).toBe(true);
    expect(demoteUnhealthyPass('pass', 'interval within the SLO', h)).toMatchObject({
      verdict: 'pass',
      demoted: false,
    });
  });

  it.each([
    [
      'send lag p99 over 10 % of the SLO',
      { sendLagP99Ms: 301 },
      'send lag p99 301.0 ms > 10 % of the 3000 ms SLO',
    ],
    [
      'event-loop delay p99 over 100 ms',
      { eventLoopDelayP99Ms: 140 },
      'client event-loop delay p99 140.0 ms > 100 ms',
    ],
    ['CPU over 90 % of one core', { cpuShare: 0.95 }, 'client CPU 95.0 % of one core > 90 %'],
    ['dropped arrivals', { droppedArrivals: 3 }, 'the client dropped 3 arrivals'],
  ])('turns a decided PASS into undecided, never pass, when %s, and says why', (_, change, why) => {
    const h = judgeClientHealth({ ...healthy, ...change }, 3000);
    expect(h.healthy).toBe(false);
    const d = demoteUnhealthyPass('pass', '[2700, 2950] within the 3000 ms SLO', h);
    expect(d.verdict).toBe('undecided');
    expect(d.reason).toContain(why);
    expect(d.reason).toContain('the interval said: [2700, 2950] within the 3000 ms SLO');
  });

  it('keeps a fail a fail and an unmeasured client (simulated clock) changes nothing', () => {
    const sick = judgeClientHealth({ ...healthy, cpuShare: 1 }, 3000);
    expect(demoteUnhealthyPass('fail', 'above', sick).verdict).toBe('fail');
    expect(demoteUnhealthyPass('pass', 'within', null).verdict).toBe('pass');
  });

  it('sits exactly at the thresholds without tripping (10 % of the SLO, 100 ms, 90 %)', () => {
    expect(
      judgeClientHealth({ ...healthy, sendLagP99Ms: 300, eventLoopDelayP99Ms: 100, cpuShare: 0.9 }, 3000)
        .healthy,
    ).toBe(true);
  });

  it('merged shards: one starved shard makes the rate undecided, naming the shard', () => {
    const merged = combineClientHealth([
      judgeClientHealth(healthy, 3000),
      judgeClientHealth({ ...healthy, sendLagP99Ms: 500, droppedArrivals: 2 }, 3000),
    ]);
    expect(merged?.healthy).toBe(false);
    expect(merged?.reasons[0]).toMatch(/^shard 1: send lag p99 500\.0 ms/);
    expect(merged?.droppedArrivals).toBe(2);
    expect(merged?.sendLagP99Ms).toBe(500);
    expect(combineClientHealth([null, null])).toBeNull();
  });
});
