/**
 * The action's side of exit code 3, run from src (the bundle in dist/ is rebuilt from it): an
 * AWS-touching step pointed at an unreachable SageMaker exits 3 with the verdict
 * `operational-error`, says "operational error" (not "failed", which reads as a finding) in the
 * log, the failure annotation and the job summary, and names the operation, resource and region.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, runStep } from './run-action.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe('the action on an unreachable SageMaker', () => {
  for (const command of ['drift', 'validate'] as const) {
    it(`exits 3 from \`${command}\` with verdict operational-error, naming operation, resource and region`, async () => {
      const run = await runStep({
        entry: 'main',
        fromSource: true,
        workspace: makeWorkspace({ withPlan: true }),
        eventName: 'push',
        inputs: {
          command,
          model: 'kokoro-82m',
          endpoint: 'speech-kokoro-82m-calibration',
          region: 'eu-west-3',
        },
        env: {
          AWS_ENDPOINT_URL: `http://127.0.0.1:${await closedPort()}`,
          AWS_REGION: 'eu-west-3',
          AWS_ACCESS_KEY_ID: 'x',
          AWS_SECRET_ACCESS_KEY: 'y',
          AWS_MAX_ATTEMPTS: '1',
        },
      });
      const all = run.stdout + run.stderr;
      expect(run.status, all).toBe(3);
      expect(run.outputs).toMatchObject({ verdict: 'operational-error', 'exit-code': '3' });
      expect(run.summary.split('\n')[0]).toBe(
        `## ⛔ scalegate ${command} · kokoro-82m: **operational error** (exit 3): not a finding`,
      );
      expect(run.summary).toContain('operational error (an AWS call or the network; exit 3, not a finding)');
      const annotation = run.stdout.split('\n').find((l) => l.startsWith('::error::'));
      expect(annotation, all).toMatch(
        new RegExp(
          `^::error::scalegate ${command}: operational error: [A-Z][A-Za-z]+ .*speech-kokoro-82m-calibration.* in eu-west-3: .*ECONNREFUSED`,
        ),
      );
      expect(all).not.toMatch(/\n\s+at /);
    });
  }
});
