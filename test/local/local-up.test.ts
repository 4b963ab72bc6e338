// `scalegate local up` as a real process: prints its JSON line when ready, serves the SDK, and
// leaves no container behind after SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DescribeEndpointCommand } from '@aws-sdk/client-sagemaker';
import { afterEach, describe, expect, it } from 'vitest';
import { createPricingClient, fetchInstancePrice } from '../../src/aws/pricing.js';
import { PRICE_TABLE } from '../../src/plan/price-table.js';
import { clientsFor, FIXTURES, isAlive } from './helpers.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

function localUp(args: string[]) {
  // `node --import tsx` (not npx): one process, so the signal reaches runLocalUp itself.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(FIXTURES, 'local-up-entry.ts'), 'local', 'up', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const stdout: string[] = [];
  const stderr: string[] = [];
  const pids = new Set<number>();
  const waiters: Array<() => void> = [];
  const notify = () => {
    for (const w of waiters.splice(0)) w();
  };
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (l) => {
    stdout.push(l);
    notify();
  });
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (l) => {
    stderr.push(l);
    for (const m of l.matchAll(/pid (\d+)/g)) pids.add(Number(m[1]));
    notify();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const until = async (cond: () => boolean) => {
    while (!cond()) {
      if (child.exitCode !== null) throw new Error(`local up exited ${child.exitCode}: ${stderr.join('\n')}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        child.once('exit', () => r());
      });
    }
  };
  return { child, stdout, stderr, pids, exited, until };
}

describe('scalegate local up', () => {
  it('prints one JSON line when ready, serves the SDK (the Price List API: the table, --price over it), and after SIGTERM no container remains', async () => {
    const up = localUp([
      '--instances',
      '2',
      '--provision-delay-s',
      '0.5',
      '--endpoint',
      'speech-local-test',
      '--price',
      'ml.emu.large=0.5',
      '--price',
      'ml.g5.xlarge=2.25',
    ]);
    await up.until(() => up.stdout.length > 0);
    expect(up.stdout).toHaveLength(1);
    const info = JSON.parse(up.stdout[0] as string);
    expect(Object.keys(info).sort()).toEqual(['aws_endpoint_url', 'endpoint_name', 'region', 'variant']);
    expect(info).toMatchObject({
      region: 'local',
      endpoint_name: 'speech-local-test',
      variant: 'AllTraffic',
    });
    expect(info.aws_endpoint_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const c = clientsFor({ url: info.aws_endpoint_url, region: info.region });
    const d = await c.sagemaker.send(new DescribeEndpointCommand({ EndpointName: 'speech-local-test' }));
    c.destroy();
    expect(d.EndpointStatus).toBe('InService');
    expect(d.ProductionVariants?.[0]?.CurrentInstanceCount).toBe(2);
    const pricing = createPricingClient({
      modelRegion: 'us-east-1',
      endpoint: info.aws_endpoint_url,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      expect((await fetchInstancePrice(pricing, 'ml.emu.large', 'us-east-1'))?.hourly_usd).toBe(0.5);
      expect((await fetchInstancePrice(pricing, 'ml.g5.xlarge', 'us-east-1'))?.hourly_usd).toBe(2.25);
      expect((await fetchInstancePrice(pricing, 'ml.m5.xlarge', 'us-east-1'))?.hourly_usd).toBe(
        PRICE_TABLE['us-east-1']?.['ml.m5.xlarge'],
      );
    } finally {
      pricing.destroy();
    }

    expect(up.pids.size).toBe(2);
    for (const pid of up.pids) expect(isAlive(pid)).toBe(true);
    up.child.kill('SIGTERM');
    expect(await up.exited).toBe(0);
    for (const pid of up.pids) expect(isAlive(pid)).toBe(false);
    expect(up.stdout).toHaveLength(1); // progress never goes to stdout
  });

  it('stops what it started when SIGTERM arrives during start-up', async () => {
    const up = localUp(['--provision-delay-s', '0']);
    await up.until(() => up.pids.size > 0);
    up.child.kill('SIGTERM');
    expect(await up.exited).toBe(0);
    for (const pid of up.pids) expect(isAlive(pid)).toBe(false);
  });

  it('exits 2 naming --price on a price that is not <instance type>=<USD>', async () => {
    const up = localUp(['--price', 'ml.g5.xlarge=free']);
    expect(await up.exited).toBe(2);
    expect(up.stderr.join('\n')).toContain('--price ml.g5.xlarge=free');
  });

  it('exits 2 with a message naming the flag on a bad flag', async () => {
    const up = localUp(['--max-queue-depth', 'lots']);
    expect(await up.exited).toBe(2);
    expect(up.stderr.join('\n')).toContain('--max-queue-depth');
    expect(up.stdout).toEqual([]);
  });
});
