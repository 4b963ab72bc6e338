/**
 * The measurement_vantage finding: a ladder loaded from outside the endpoint's region, or from a
 * machine of unknown region, warns (every TTFAB carries the network leg) and says how large the
 * RTT floor is against first audio; from inside the region, or on the local SageMaker, it is ok;
 * without a recorded vantage it is not evaluated.
 */
import { describe, expect, it } from 'vitest';
import type { QmaxArtifact, Vantage } from '../../src/model/index.js';
import { measurementVantage } from '../../src/plan/vantage-finding.js';

const rtt = (ms: number): Vantage['rtt_floor'] => ({
  provenance: 'measured',
  target: 'runtime.sagemaker.us-east-1.amazonaws.com:443',
  tcp_ms: ms,
  tls_ms: ms * 2,
  completed: 5,
  attempts: 5,
  error: null,
});

const qmaxFrom = (
  vantage: Vantage | undefined,
  region: string | null = 'us-east-1',
  transport = 'response-stream',
) =>
  ({
    transport,
    fingerprint: { instance_type: 'ml.g5.xlarge', image_digest: 'a'.repeat(64), container_env: {}, region },
    ...(vantage ? { vantage } : {}),
  }) as unknown as QmaxArtifact;

const github: Vantage = {
  runner: 'github-hosted',
  region: null,
  region_source: null,
  host: 'fv-az1',
  rtt_floor: rtt(71.2),
};

describe('measurement_vantage', () => {
  it('warns when the load came from a GitHub-hosted runner (region unknown) for an AWS endpoint, with the RTT floor as a share of first audio', () => {
    const f = measurementVantage('kokoro', qmaxFrom(github), 300);
    expect(f.verdict).toBe('warn');
    expect(f.detail).toContain('region unknown, for an endpoint in us-east-1');
    expect(f.detail).toContain(
      'RTT floor 71.2 ms (measured, to runtime.sagemaker.us-east-1.amazonaws.com:443) = 23.7 % of TTFAB p95 at concurrency 1 (300.0 ms)',
    );
    expect(f.fix).toMatch(/runner in us-east-1 .*runs-on.*docs\/vantage\.md.*SCALEGATE_VANTAGE_REGION/);
  });

  it('warns when the runner is in another region than the endpoint', () => {
    const other: Vantage = {
      ...github,
      runner: 'codebuild',
      region: 'eu-west-1',
      region_source: 'CODEBUILD_BUILD_ARN',
    };
    const f = measurementVantage('kokoro', qmaxFrom(other), 300);
    expect(f.verdict).toBe('warn');
    expect(f.detail).toContain('in eu-west-1 (CODEBUILD_BUILD_ARN), the endpoint is in us-east-1');
  });

  it("is ok from a runner in the endpoint's region", () => {
    const inRegion: Vantage = {
      ...github,
      runner: 'codebuild',
      region: 'us-east-1',
      region_source: 'CODEBUILD_BUILD_ARN',
      rtt_floor: rtt(0.8),
    };
    const f = measurementVantage('kokoro', qmaxFrom(inRegion), 300);
    expect(f.verdict).toBe('ok');
    expect(f.detail).toContain("the endpoint's region; RTT floor 0.8 ms");
  });

  it('is ok on the local SageMaker and for a container measured directly (no region to be outside of)', () => {
    const local: Vantage = { ...github, runner: 'local', rtt_floor: rtt(0.1) };
    expect(measurementVantage('kokoro', qmaxFrom(local, 'local'), 50).verdict).toBe('ok');
    expect(measurementVantage('kokoro', qmaxFrom(local, 'local', 'http'), 50).detail).toContain(
      'a container measured directly',
    );
  });

  it('is not evaluated (suppressed, never a pass) for a qmax written before the vantage was recorded', () => {
    const f = measurementVantage('kokoro', qmaxFrom(undefined), 300);
    expect(f.verdict).toBe('suppressed');
    expect(f.detail).toContain('vantage not recorded');
  });
});
