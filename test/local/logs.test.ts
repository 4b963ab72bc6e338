// CloudWatch Logs semantics that readers depend on (the SDK path is in endpoint.test.ts).
import { describe, expect, it } from 'vitest';
import { compileFilterPattern, LogStore } from '../../src/local/logs.js';

type Page = {
  events: Array<{ message: string; timestamp: number }>;
  nextForwardToken: string;
  nextBackwardToken: string;
};

function store() {
  const logs = new LogStore('local', '000000000000');
  const s = logs.createStream('/g', 'AllTraffic/i-1');
  for (let i = 0; i < 7; i++) logs.put(s, `line ${i}`, 1000 + i);
  return { logs, s };
}

describe('GetLogEvents tokens', () => {
  it('terminates: at the end the forward token comes back unchanged, and later events appear behind it', async () => {
    const { logs, s } = store();
    const read = (extra: Record<string, unknown>) =>
      logs.handle('GetLogEvents', {
        logGroupName: '/g',
        logStreamName: 'AllTraffic/i-1',
        limit: 3,
        ...extra,
      }) as Promise<Page>;
    const seen: string[] = [];
    let page = await read({ startFromHead: true });
    let pages = 0;
    for (;;) {
      seen.push(...page.events.map((e) => e.message));
      const next = await read({ nextToken: page.nextForwardToken });
      if (next.nextForwardToken === page.nextForwardToken) {
        expect(next.events).toEqual([]);
        break;
      }
      page = next;
      if (++pages > 10) throw new Error('token never settles');
    }
    expect(seen).toEqual(Array.from({ length: 7 }, (_, i) => `line ${i}`));
    logs.put(s, 'line 7', 2000);
    const tail = await read({ nextToken: page.nextForwardToken });
    expect(tail.events.map((e) => e.message)).toEqual(['line 7']);
  });

  it('reads the newest events first without startFromHead, and honours [startTime, endTime)', async () => {
    const { logs } = store();
    const last = (await logs.handle('GetLogEvents', {
      logGroupName: '/g',
      logStreamName: 'AllTraffic/i-1',
      limit: 2,
    })) as Page;
    expect(last.events.map((e) => e.message)).toEqual(['line 5', 'line 6']);
    const ranged = (await logs.handle('GetLogEvents', {
      logGroupName: '/g',
      logStreamName: 'AllTraffic/i-1',
      startFromHead: true,
      startTime: 1002,
      endTime: 1004,
    })) as Page;
    expect(ranged.events.map((e) => e.message)).toEqual(['line 2', 'line 3']);
  });

  it('answers an unknown group or stream with ResourceNotFoundException', async () => {
    const { logs } = store();
    await expect(
      logs.handle('GetLogEvents', { logGroupName: '/nope', logStreamName: 'x' }),
    ).rejects.toMatchObject({
      type: 'ResourceNotFoundException',
    });
    await expect(
      logs.handle('GetLogEvents', { logGroupName: '/g', logStreamName: 'x' }),
    ).rejects.toMatchObject({
      type: 'ResourceNotFoundException',
    });
  });
});

describe('filter patterns', () => {
  it('matches terms (all), quoted phrases, ?optional and -excluded terms, case-sensitively', () => {
    expect(compileFilterPattern('')('anything')).toBe(true);
    expect(compileFilterPattern('STAGE ready')('=== STAGE ready t=...')).toBe(true);
    expect(compileFilterPattern('STAGE ready')('=== STAGE warmup_done')).toBe(false);
    expect(compileFilterPattern('"=== STAGE"')('=== STAGE ready')).toBe(true);
    expect(compileFilterPattern('"=== STAGE"')('[fake] STAGE')).toBe(false);
    expect(compileFilterPattern('?ERROR ?WARN')('a WARN b')).toBe(true);
    expect(compileFilterPattern('?ERROR ?WARN')('info')).toBe(false);
    expect(compileFilterPattern('STAGE -ready')('STAGE ready')).toBe(false);
    expect(compileFilterPattern('stage')('STAGE')).toBe(false);
    expect(() => compileFilterPattern('{ $.level = "x" }')).toThrow(/only term filter patterns/);
  });
});
