/**
 * waitUntil: the one way scalegate waits. It must return what the probe found, give up exactly
 * at its deadline (on its own clock, so no test depends on wall time), say once what it waits for,
 * and abort the same way everywhere: at once, with the signal's reason.
 */
import { describe, expect, it } from 'vitest';
import { abortReason, waitUntil } from '../src/wait.js';

/** A clock that advances only when the wait pauses: deadlines are judged on it, not on wall time. */
function steppedClock() {
  let now = 0;
  return { clock: () => now, advance: (ms: number) => (now += ms) };
}

describe('waitUntil', () => {
  it('returns what the probe answers, asking again after each pause, and logs what it waits for once', async () => {
    const lines: string[] = [];
    let asked = 0;
    const answer = await waitUntil('the third look', () => (++asked === 3 ? 'found' : undefined), {
      interval: 1,
      log: (l) => lines.push(l),
    });
    expect(answer).toBe('found');
    expect(asked).toBe(3);
    expect(lines).toEqual(['waiting for the third look']);
  });

  it('gives up at the deadline of its clock, after one last look at it, and returns undefined', async () => {
    const t = steppedClock();
    const looks: number[] = [];
    const answer = await waitUntil(
      'nothing',
      () => {
        looks.push(t.clock());
        t.advance(400);
        return undefined;
      },
      { interval: 1, deadline: 1000, clock: t.clock },
    );
    expect(answer).toBeUndefined();
    expect(looks).toEqual([0, 400, 800]);
  });

  it('pauses before the first look when asked to (a probe that judges the pause)', async () => {
    const lines: string[] = [];
    let asked = 0;
    await waitUntil('a tick', () => (++asked >= 1 ? true : undefined), {
      interval: 1,
      pauseFirst: true,
      log: (l) => lines.push(l),
    });
    expect(asked).toBe(1);
    expect(lines).toEqual(['waiting for a tick']);
  });

  it('asks the interval function with the current time (a wait that stops at a boundary)', async () => {
    const asked: number[] = [];
    const t = steppedClock();
    let looks = 0;
    const probe = () => {
      if (++looks === 2) return true;
      t.advance(5);
      return undefined;
    };
    await waitUntil('two looks', probe, {
      interval: (now) => {
        asked.push(now);
        return 0;
      },
      clock: t.clock,
    });
    expect(asked).toEqual([5]);
  });

  it('aborts a pause at once with the signal reason, whatever the interval', async () => {
    const controller = new AbortController();
    const reason = new Error('SIGTERM');
    const pending = waitUntil('forever', () => undefined, { interval: 3_600_000, signal: controller.signal });
    setImmediate(() => controller.abort(reason));
    await expect(pending).rejects.toBe(reason);
  });

  it('refuses to start on an aborted signal, and wraps a reason that is not an Error as an AbortError', async () => {
    const controller = new AbortController();
    controller.abort('stop');
    let asked = false;
    const refused = waitUntil(
      'anything',
      () => {
        asked = true;
        return true;
      },
      { interval: 1, signal: controller.signal },
    );
    await expect(refused).rejects.toMatchObject({ name: 'AbortError', message: 'stop' });
    expect(asked).toBe(false);
    expect(abortReason(controller.signal)).toMatchObject({ name: 'AbortError', message: 'stop' });
  });
});
