import { describe, expect, it } from 'vitest';
import { awaitCalmClient } from '../../src/load/client-calm.js';
import { renderCalmClientLine } from '../../src/report/qmax-text.js';
import { starveEventLoop } from '../helpers/starve-event-loop.js';

describe('awaitCalmClient', () => {
  it('returns calm once a window shows the event loop on time (prevents a re-measure held back by a healthy client)', async () => {
    const lines: string[] = [];
    // A generous limit and many windows: the suite's neighbours may slow a window, never every one.
    const result = await awaitCalmClient({
      calmDelayMs: 150,
      windowMs: 250,
      maxWaitS: 30,
      log: (l) => lines.push(l),
    });
    expect(result.calm).toBe(true);
    expect(result.lastDelayP99Ms).not.toBeNull();
    expect(result.lastDelayP99Ms as number).toBeLessThanOrEqual(150);
    expect(lines[0]).toMatch(/^waiting for a calm client \(event-loop delay p99 <= 150 ms/);
  });

  it('keeps waiting while the event loop is starved and gives up at its limit, not calm (prevents a second measurement started on a starved client as if it were calm)', async () => {
    const stop = starveEventLoop(150, 160);
    try {
      const result = await awaitCalmClient({ calmDelayMs: 30, windowMs: 300, maxWaitS: 1.5 });
      expect(result.calm).toBe(false);
      expect(result.windows).toBeGreaterThanOrEqual(2);
      expect(result.lastDelayP99Ms as number).toBeGreaterThan(30);
    } finally {
      stop();
    }
  });

  it('rejects with the signal reason when aborted (prevents a SIGINT waiting out the calm wait while the endpoint is frozen)', async () => {
    const controller = new AbortController();
    const stop = starveEventLoop(150, 160);
    try {
      const waiting = awaitCalmClient({
        calmDelayMs: 1,
        windowMs: 200,
        maxWaitS: 60,
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(new Error('interrupted')), 50);
      await expect(waiting).rejects.toThrow('interrupted');
    } finally {
      stop();
    }
  });
});

describe('renderCalmClientLine', () => {
  it('says whether the client became calm before the rung is measured again (prevents a silent wait)', () => {
    expect(renderCalmClientLine(9, { calm: true, windows: 1, lastDelayP99Ms: 3.25 })).toBe(
      'qmax: concurrency 9 was client-bound; the client is calm again (event-loop delay p99 3.3 ms), measuring it once more',
    );
    expect(renderCalmClientLine(9, { calm: false, windows: 30, lastDelayP99Ms: 140 })).toContain(
      'the client stayed late for 30 windows (event-loop delay p99 140.0 ms), measuring it once more anyway',
    );
  });
});
