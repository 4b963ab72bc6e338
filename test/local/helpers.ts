import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { clientConfigFor } from '../../src/local/aws-env.js';
import type { ContainerSpec } from '../../src/local/index.js';

export const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

/** The fake container (fixtures/fake-container.mjs) as a container spec. */
export const fakeContainer = (env: Record<string, string> = {}): ContainerSpec => ({
  command: [process.execPath, join(FIXTURES, 'fake-container.mjs')],
  env,
  portFromOutput: /^\[fake\] listening port=(\d+)/,
});

/** Real SDK v3 clients pointed at a local SageMaker, with a socket pool above our concurrency. */
export function clientsFor(handle: { url: string; region: string }) {
  const base = {
    ...clientConfigFor(handle),
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({ httpAgent: new http.Agent({ keepAlive: true, maxSockets: 256 }) }),
  };
  return {
    sagemaker: new SageMakerClient(base),
    runtime: new SageMakerRuntimeClient(base),
    cloudwatch: new CloudWatchClient(base),
    logs: new CloudWatchLogsClient(base),
    autoscaling: new ApplicationAutoScalingClient(base),
    quotas: new ServiceQuotasClient(base),
    destroy() {
      for (const c of [
        this.sagemaker,
        this.runtime,
        this.cloudwatch,
        this.logs,
        this.autoscaling,
        this.quotas,
      ])
        c.destroy();
    },
  };
}

/** Polls `probe` until it returns a value other than undefined (state that changes asynchronously). */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Catches the error a promise rejects with (fails if it resolves). */
export async function rejectionOf(p: Promise<unknown>): Promise<Record<string, unknown> & Error> {
  try {
    await p;
  } catch (e) {
    return e as Record<string, unknown> & Error;
  }
  throw new Error('expected a rejection');
}
