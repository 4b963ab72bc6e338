import { describe, expect, it } from 'vitest';
import type { CompareArtifact } from '../../src/model/index.js';
import { renderFrontierMermaid } from '../../src/report/compare-chart-md.js';

const candidate = (
  label: string,
  file: string,
  cost: number | null,
  margin: number | null,
  holds = true,
) => ({
  label,
  file,
  instance_type: label === 'candidate 0' ? 'ml.g5.xlarge' : 'ml.g5.2xlarge',
  usd_per_million_characters_surge_safe: { value: cost, origin: 'computed' },
  slo_margin: { value: margin, origin: 'computed' },
  holds,
});

const artifact = (candidates: ReturnType<typeof candidate>[], chosen: string | null) =>
  ({ candidates, chosen: chosen === null ? null : { file: chosen } }) as unknown as CompareArtifact;

describe('renderFrontierMermaid', () => {
  it('places each candidate at (margin, cost / axis top) so the PR comment shows the frontier (prevents a chart whose points do not match the table)', () => {
    const chart = renderFrontierMermaid(
      artifact(
        [candidate('candidate 0', 'a.json', 0.238, 0.929), candidate('candidate 1', 'b.json', 0.189, 0.848)],
        'b.json',
      ),
    ) as string;
    expect(chart.startsWith('```mermaid\nquadrantChart\n')).toBe(true);
    // The dearest sits at 0.9 of the axis (top = 0.238 / 0.9 = 0.264).
    expect(chart).toContain('  candidate 0 ml.g5.xlarge: [0.929, 0.9]');
    expect(chart).toContain('  candidate 1 ml.g5.2xlarge - chosen: [0.848, 0.715]');
    expect(chart).toContain('y-axis USD 0 --> USD 0.264 per 1M characters');
  });

  it('keeps labels inside Mermaid grammar and values inside [0, 1] (prevents a comment whose chart fails to render)', () => {
    const chart = renderFrontierMermaid(
      artifact(
        [candidate('candidate 0', 'a.json', 0.5, -0.2, false), candidate('candidate 1', 'b.json', null, 0.5)],
        null,
      ),
    ) as string;
    expect(chart).toContain('  candidate 0 ml.g5.xlarge - does not hold: [0, 0.9]');
    expect(chart).not.toContain('candidate 1');
    expect(
      renderFrontierMermaid(artifact([candidate('candidate 1', 'b.json', null, null)], null)),
    ).toBeNull();
  });
});
