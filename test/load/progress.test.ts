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
