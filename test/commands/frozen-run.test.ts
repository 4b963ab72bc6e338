/** The one freeze-measure-restore protocol, seen from its steps (nothing to freeze: a container measured directly). */
import { describe, expect, it } from 'vitest';
import { frozenRun } from '../../src/commands/frozen-run.js';

const spec = (signal?: AbortSignal) => ({
  endpoint: 'ep',
  variant: 'AllTraffic',
  region: 'local',
  clients: null,
  commandLine: 'scalegate test',
  runId: 'run-1',
  signal,
  log: () => {},
});

describe('frozenRun', () => {
  it('measures, releases the load, then finishes, in that order, with nothing to restore', async () => {
    const order: string[] = [];
    const result = await frozenRun(spec(), {
      measure: async (ctx) => {
        order.push('measure');
        expect(ctx.freeze).toBeNull();
        expect(await ctx.observeCapacity()).toBeNull();
        return 42;
      },
      release: async () => {
        order.push('release');
      },
      afterRestore: async () => {
        order.push('afterRestore');
      },
      finish: async (measured, ctx) => {
        order.push('finish');
        expect(ctx.restore).toBeNull();
        return measured + 1;
      },
    });
    expect(result).toBe(43);
    expect(order).toEqual(['measure', 'release', 'afterRestore', 'finish']);
  });

  it('a failed measurement still releases the load, and rethrows without finishing', async () => {
    const order: string[] = [];
    await expect(
      frozenRun(spec(), {
        measure: async () => {
          throw new Error('boom');
        },
        release: async () => {
          order.push('release');
        },
        finish: async () => {
          order.push('finish');
        },
      }),
    ).rejects.toThrow('boom');
    expect(order).toEqual(['release']);
  });

  it("the caller's abort ends the run without a result, even when the measurement returned", async () => {
    const controller = new AbortController();
    let finished = false;
    await expect(
      frozenRun(spec(controller.signal), {
        measure: async () => controller.abort(),
        finish: async () => {
          finished = true;
        },
      }),
    ).rejects.toThrow('aborted');
    expect(finished).toBe(false);
  });
});
