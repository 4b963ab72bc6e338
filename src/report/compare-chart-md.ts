/**
 * The compare frontier as a Mermaid `quadrantChart` (GitHub renders Mermaid in comments and job
 * summaries, and a comment cannot show the SVG): one point per candidate with both figures, the SLO
 * margin across (0 to 1) and the cost per 1M characters at the surge-safe load up (0 to the dearest), so
 * the cheapest with the most margin sits bottom right. Only numbers from the artifact reach it.
 */
import type { CompareArtifact } from '../model/index.js';
import { rankingCost } from '../plan/compare.js';
import { mermaidText } from './escape-md.js';

const unit = (n: number): string => `${Math.round(Math.min(1, Math.max(0, n)) * 1000) / 1000}`;

export function renderFrontierMermaid(a: CompareArtifact): string | null {
  const points = a.candidates.flatMap((c) => {
    const cost = rankingCost(c);
    const margin = c.slo_margin.value;
    return cost !== null && margin !== null ? [{ c, cost, margin }] : [];
  });
  if (points.length === 0) return null;
  const dearest = Math.max(...points.map((p) => p.cost));
  const top = dearest > 0 ? dearest / 0.9 : 1;
  const label = (p: (typeof points)[number]): string => {
    const tags = [p.c.file === a.chosen?.file ? 'chosen' : null, p.c.holds ? null : 'does not hold'];
    const extra = tags.filter((t) => t !== null).join(', ');
    // A colon or bracket would end the point's label in Mermaid's grammar.
    return mermaidText(`${p.c.label} ${p.c.instance_type}${extra ? ` - ${extra}` : ''}`).replace(
      /[:()]/g,
      '',
    );
  };
  return [
    '```mermaid',
    'quadrantChart',
    `  title Cost per 1M characters at the surge-safe load vs SLO margin (computed)`,
    '  x-axis SLO margin 0 --> SLO margin 1',
    `  y-axis USD 0 --> USD ${mermaidText(top.toPrecision(3))} per 1M characters`,
    ...points.map((p) => `  ${label(p)}: [${unit(p.margin)}, ${unit(p.cost / top)}]`),
    '```',
  ].join('\n');
}
