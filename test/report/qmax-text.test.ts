/**
 * The terminal report of a qmax ladder: each rung's interval with the level it really has (an
 * interim look is 98.75 %, a final one 95-97.5 %; an old order-statistic interval assumed
 * independence), the service-time basis when it is not concurrency 1, and an unmet resolution.
 */
import { describe, expect, it } from 'vitest';
import { type QmaxArtifact, readArtifact } from '../../src/model/index.js';
import { renderQmaxReport } from '../../src/report/qmax-text.js';
import { anchorQmaxFile } from '../helpers/anchor.js';

const anchor = readArtifact('qmax', anchorQmaxFile);

function ladder(): QmaxArtifact {
  const q = structuredClone(anchor);
  const at = (c: number) => q.steps.find((s) => s.concurrency === c) as QmaxArtifact['steps'][number];
  Object.assign(at(5), {
    ttfab_p95_ci_ms: { low: 280, high: 292 },
    decision_method: 'batch-sectioning',
    ci_level: 0.9875,
  });
  Object.assign(at(50), {
    ttfab_p95_ci_ms: { low: 2790, high: 2821 },
    decision_method: 'batch-sectioning',
    ci_level: 0.975,
  });
  Object.assign(at(60), { ttfab_p95_ci_ms: { low: 3300, high: 3400 } });
  return q;
}

const row = (text: string, concurrency: number): string =>
  text.split('\n').find((l) => new RegExp(`^ +1 +\\d+ +${concurrency} `).test(l)) ?? '';

describe('qmax terminal report', () => {
  it("prints each rung's interval at its own level, never a blanket 95 %", () => {
    const text = renderQmaxReport(ladder(), null, null);
    expect(text).not.toContain('95% CI');
    expect(text).toContain('CI ms (level)');
    expect(row(text, 5)).toContain('[280.0, 292.0] 98.75 %');
    expect(row(text, 50)).toContain('[2790.0, 2821.0] 97.5 %');
    // An interval from before the batch decision: order statistics that assumed independent samples.
    expect(row(text, 60)).toContain('[3300.0, 3400.0] 95 %, iid');
  });

  it('prints what a PASS promises as a simulated bound with its class, and nothing for artifacts without one', () => {
    const q = ladder();
    q.false_pass_bound = {
      bound: 0.01,
      worst_cell: 0.09,
      coverage: 0.96,
      worst_cell_coverage: 0.78,
      decision_method: 'batch-sectioning-sequential',
      calibrated_over: 'closed loops, N 1-64',
    };
    expect(renderQmaxReport(q, null, null)).toContain(
      'a PASS verdict: P(PASS | true p95 = SLO) <= 1 % pooled, 9 % in the worst cell; interval coverage 96 % pooled, 78 % in the worst cell (bound (simulated over class: closed loops, N 1-64))',
    );
    expect(renderQmaxReport(ladder(), null, null)).not.toContain('P(PASS');
  });

  it('warns when S_mean/S_p95 do not come from a usable rung at concurrency 1', () => {
    const q = ladder();
    q.service_time_basis = {
      concurrency: 5,
      usable: true,
      fallback: true,
      reason: 'concurrency 1 was unusable: saturated (1 requests rejected)',
    };
    expect(renderQmaxReport(q, null, null)).toContain(
      'WARNING: S_mean/S_p95 from concurrency 5, not 1 (concurrency 1 was unusable: saturated (1 requests rejected)): it may include queueing',
    );
    expect(renderQmaxReport(ladder(), null, null)).not.toContain('WARNING: S_mean');
  });

  it('says when the search did not reach its resolution, and how high Q_max may be', () => {
    const q = ladder();
    q.search = { upper_bound: 60, resolution: 2, resolution_met: false, undecided_rungs: [55] };
    expect(renderQmaxReport(q, null, null)).toContain(
      'the search did not reach its resolution 2 (undecided: 55): Q_max may be up to 59',
    );
  });
});
