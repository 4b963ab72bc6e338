/** The goodput terminal report's metric level per rate: labelled measured, or why there is none. */
import { describe, expect, it } from 'vitest';
import type { GoodputArtifact } from '../../src/model/index.js';
import { metricLevelLines } from '../../src/report/goodput-text.js';

const level = (p10: number, p50: number, p90: number, mean: number) => ({
  metric: 'ConcurrentRequestsPerModel' as const,
  statistic: 'Maximum' as const,
  period_s: 10,
  periods: 30,
  p10,
  p50,
  p90,
  mean_in_flight: mean,
  open_loop_r: Math.round((p50 / mean) * 1000) / 1000,
  origin: 'measured' as const,
});

const artifact = (
  rungs: Array<Partial<GoodputArtifact['rungs'][number]>>,
  cloudwatch?: GoodputArtifact['cloudwatch'],
) => ({ rungs, ...(cloudwatch ? { cloudwatch } : {}) }) as unknown as GoodputArtifact;

describe('goodput report: the metric level per rate', () => {
  it('prints each rate with its periods, p10/p50/p90, mean in flight and open-loop R, labelled measured', () => {
    const lines = metricLevelLines(
      artifact(
        [
          { rate_rps: 43, metric_level: level(6, 7, 9, 1.45) },
          { rate_rps: 53.7, metric_level: null },
        ],
        { joined: true, error: '53.7/s: no ConcurrentRequestsPerModel datapoint inside the window' },
      ),
    );
    expect(lines.join('\n')).toMatch(
      /metric level per rate \(measured: CloudWatch ConcurrentRequestsPerModel, Maximum per 10 s period/,
    );
    expect(lines).toContain('    43  30       6.0     7.0     9.0     1.45            4.83');
    expect(lines).toContain('  53.7  -        not joined');
    expect(lines.at(-1)).toBe(
      'metric level: 53.7/s: no ConcurrentRequestsPerModel datapoint inside the window',
    );
  });

  it('says why there is no level (http transport, --no-cloudwatch), and nothing for older files', () => {
    const http = metricLevelLines(
      artifact([{ rate_rps: 5, metric_level: null }], {
        joined: false,
        error: 'http transport: a container measured directly has no CloudWatch metrics',
      }),
    );
    expect(http).toContain(
      'metric level: none (http transport: a container measured directly has no CloudWatch metrics)',
    );
    expect(metricLevelLines(artifact([{ rate_rps: 5 }]))).toEqual([]);
  });
});
