/**
 * The action's plan step finds its measurements with the CLI's function and logs the same lines
 * (run from src; the bundle in dist/ is rebuilt from it).
 */
import { describe, expect, it } from 'vitest';
import { makeWorkspace, runStep } from './run-action.js';

describe('the plan step without qmax and ttotal inputs', () => {
  it('logs which qmax and ttotal it chose and why, as `scalegate plan` does on stderr', async () => {
    const run = await runStep({
      entry: 'main',
      fromSource: true,
      workspace: makeWorkspace(),
      eventName: 'push',
      inputs: { command: 'plan', model: 'kokoro-82m', comment: 'false', commit: 'false', upload: 'false' },
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /qmax: using artifacts\/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc\.json \(newest for model kokoro-82m, fingerprint g5xlarge-8b1b96bc\)/,
    );
    expect(run.stdout).toMatch(
      /ttotal: using artifacts\/ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc\.json \(newest with the qmax's fingerprint g5xlarge-8b1b96bc\)/,
    );
  });
});
