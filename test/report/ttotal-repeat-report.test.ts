import { describe, expect, it } from 'vitest';
import { combineRepeats } from '../../src/analysis/ttotal-repeat.js';
import { readArtifact, type TtotalArtifact } from '../../src/model/index.js';
import { ttotalSection } from '../../src/report/markdown-sections.js';
import { renderTtotalReport } from '../../src/report/ttotal-text.js';
import { anchorTtotalFile } from '../helpers/anchor.js';

const anchor = readArtifact('ttotal', anchorTtotalFile);
const run = (t: number): TtotalArtifact => ({
  ...anchor,
  t_total_s: t,
  t_total_end_stage: 'traffic_recovered',
});

describe('a repeated ttotal in the reports', () => {
  const repeated = combineRepeats([run(250.1), run(262.3), run(258)]);

  it('terminal: every observation, the bound with its method, and T_plan built on the bound', () => {
    const text = renderTtotalReport(repeated, null);
    expect(text).toContain('3 scale-outs: T_total 250.10 s, 262.30 s, 258.00 s');
    expect(text).toMatch(/next T_total <= 2\d\d\.\d\d s \(upper 90 % prediction bound, log-normal/);
    expect(text).toContain("planned T_plan = T_total's upper prediction bound + policy lag");
  });

  it('PR comment and job summary: the observations and the bound beside the stages', () => {
    const md = ttotalSection({ artifact: repeated, file: null }).join('\n');
    expect(md).toContain('3 scale-outs: 250.1 s, 262.3 s, 258 s.');
    expect(md).toMatch(/Next T\\_total \\<= 2\d\d\.\d s/);
  });

  it('a single scale-out says the bound is not available rather than printing one', () => {
    const single = combineRepeats([run(260.2)]);
    expect(single.t_total_prediction?.upper_s).toBeNull();
    expect(renderTtotalReport(single, null)).toContain(
      'prediction bound for the next T_total: not available: single observation',
    );
  });
});
