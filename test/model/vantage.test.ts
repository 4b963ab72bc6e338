/**
 * Where a load came from: the runner kind and region from the environment (pure, a table), the
 * RTT floor measured against a real listening socket, and old artifacts without a vantage still
 * loading ("not recorded").
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureVantage } from '../../src/commands/load-start.js';
import { measureRttFloor } from '../../src/load/rtt.js';
import type { Transport } from '../../src/load/types.js';
import { detectVantage, readArtifact, vantageSchema } from '../../src/model/index.js';
import { rttFloorText, vantageLabel } from '../../src/report/vantage-text.js';
import { KOKORO_QMAX_FILE } from '../helpers/local-endpoint.js';

const ARN = 'arn:aws:codebuild:eu-west-1:123456789012:build/calibrate:0b1c';

describe('vantage detection (environment injected)', () => {
  const cases: [
    string,
    Record<string, string>,
    { runner: string; region: string | null; region_source: string | null },
  ][] = [
    [
      'a GitHub-hosted runner is outside AWS, whatever AWS_REGION the workflow set',
      { GITHUB_ACTIONS: 'true', RUNNER_ENVIRONMENT: 'github-hosted', AWS_REGION: 'us-east-1' },
      { runner: 'github-hosted', region: null, region_source: null },
    ],
    [
      'a self-hosted runner has a region only when it declares one',
      { GITHUB_ACTIONS: 'true', RUNNER_ENVIRONMENT: 'self-hosted', AWS_REGION: 'us-east-1' },
      { runner: 'self-hosted', region: null, region_source: null },
    ],
    [
      'a self-hosted runner that declares SCALEGATE_VANTAGE_REGION',
      { GITHUB_ACTIONS: 'true', RUNNER_ENVIRONMENT: 'self-hosted', SCALEGATE_VANTAGE_REGION: 'us-east-1' },
      { runner: 'self-hosted', region: 'us-east-1', region_source: 'SCALEGATE_VANTAGE_REGION' },
    ],
    [
      'a CodeBuild-hosted runner (it also says self-hosted): the build ARN region wins over a workflow AWS_REGION',
      {
        GITHUB_ACTIONS: 'true',
        RUNNER_ENVIRONMENT: 'self-hosted',
        CODEBUILD_BUILD_ARN: ARN,
        AWS_REGION: 'us-east-1',
      },
      { runner: 'codebuild', region: 'eu-west-1', region_source: 'CODEBUILD_BUILD_ARN' },
    ],
    [
      'a CodeBuild build without a usable ARN region falls back to its AWS_REGION',
      { CODEBUILD_BUILD_ARN: 'arn:aws:codebuild::1:build/x', AWS_REGION: 'ap-south-1' },
      { runner: 'codebuild', region: 'ap-south-1', region_source: 'AWS_REGION' },
    ],
    [
      'GitHub Actions without RUNNER_ENVIRONMENT is unknown',
      { GITHUB_ACTIONS: 'true' },
      { runner: 'unknown', region: null, region_source: null },
    ],
    [
      'a machine outside CI is local; its AWS_REGION names the endpoint, not the machine',
      { AWS_REGION: 'us-east-1' },
      { runner: 'local', region: null, region_source: null },
    ],
    [
      'a malformed declared region is ignored',
      { SCALEGATE_VANTAGE_REGION: 'US East!' },
      { runner: 'local', region: null, region_source: null },
    ],
  ];
  for (const [name, env, want] of cases) {
    it(name, () => {
      expect(detectVantage(env, 'host-1')).toEqual({ ...want, host: 'host-1' });
    });
  }

  it('a host name with control characters is recorded printable', () => {
    expect(detectVantage({}, 'evil\nname').host).toBe('evil?name');
    expect(vantageSchema.safeParse({ ...detectVantage({}, 'evil\nname'), rtt_floor: null }).success).toBe(
      true,
    );
  });
});

describe('the RTT floor', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('is the fastest of the handshakes to the host, over plain TCP without a TLS figure', async () => {
    const rtt = await measureRttFloor(new URL(`http://127.0.0.1:${port}/invocations`), { attempts: 3 });
    expect(rtt).toMatchObject({
      target: `127.0.0.1:${port}`,
      completed: 3,
      attempts: 3,
      tlsMs: null,
      error: null,
    });
    expect(rtt.tcpMs).toBeGreaterThan(0);
  });

  it('records a refused connection as not measured, never throws', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const rtt = await measureRttFloor(new URL(`http://127.0.0.1:${closedPort}`), { attempts: 2 });
    expect(rtt).toMatchObject({ tcpMs: null, completed: 0, attempts: 2 });
    expect(rtt.error).toMatch(/ECONNREFUSED/);
  });

  it("is recorded in the vantage, labelled measured, from the transport's own URL", async () => {
    const transport = {
      kind: 'http',
      target: 'x',
      invoke: async () => ({ outcome: 'ok', status: 200, error: null }),
      endpointUrl: async () => new URL(`http://127.0.0.1:${port}/invocations`),
      close: async () => {},
    } as Transport;
    const vantage = await measureVantage(
      transport,
      { env: {}, host: 'h', rttAttempts: 2 },
      undefined,
      () => {},
    );
    expect(vantageSchema.parse(vantage)).toEqual(vantage);
    expect(vantage.rtt_floor).toMatchObject({
      provenance: 'measured',
      target: `127.0.0.1:${port}`,
      completed: 2,
    });
    expect(rttFloorText(vantage)).toMatch(/ ms \(measured: fastest of 2 TCP connects to 127\.0\.0\.1:/);
  });
});

describe('artifacts written before the vantage was recorded', () => {
  it('still load, and say "not recorded"', () => {
    const qmax = readArtifact('qmax', KOKORO_QMAX_FILE);
    expect(qmax.vantage).toBeUndefined();
    expect(vantageLabel(qmax.vantage)).toBe('not recorded');
    expect(rttFloorText(qmax.vantage)).toBe('not recorded');
  });
});
