/**
 * The plan's cost block in words, for the terminal report, the PR comment and the job summary:
 * the instance price with where it came from, characters and audio per request, $ per 1M
 * characters and per audio-hour at the target and at the surge-safe load (computed), and the
 * stated reference prices beside them with the ratio.
 */
import type { CostPoint, PlanCost } from '../model/index.js';
import { priceProvenance } from '../plan/cost.js';
import { escapeMarkdown, markdownTable } from './escape-md.js';

/** Dollars: cents from $1 up, four significant digits below. */
export function usd(value: number): string {
  if (value >= 1) return `$${value.toFixed(2)}`;
  if (value === 0) return '$0';
  return `$${Number(value.toPrecision(4))}`;
}

const num = (value: number, digits: number): string => Number(value.toFixed(digits)).toString();

const POINT_LABEL: Record<CostPoint['at'], string> = {
  target: 'at the target X_target',
  surge_safe: 'at the surge-safe load lambda_safe',
};

/** The point the reference ratio is taken at: the surge-safe load the fleet is sized for, else the target. */
const sizedPoint = (cost: PlanCost): CostPoint | undefined =>
  cost.points.find((p) => p.at === 'surge_safe') ?? cost.points[0];

/** `<label, value>` rows of the cost block. */
export function costRows(cost: PlanCost): Array<readonly [string, string]> {
  const rows: Array<readonly [string, string]> = [];
  const p = cost.price;
  rows.push([
    'instance price',
    p
      ? `$${Number(p.hourly_usd.toPrecision(6))}/instance-hour, ${p.instance_type} in ${p.region} (${priceProvenance(p)}${p.reference && p.source === 'price-list-api' ? `, SKU ${p.reference}` : ''})`
      : 'none',
  ]);
  if (cost.characters_from !== null && cost.characters_from !== undefined) {
    rows.push([
      'characters per request',
      `${num(cost.characters_per_request, 1)} (computed from the prompts ${cost.characters_from === 'qmax' ? 'the qmax sent, as its audio summaries record' : 'file: --prompts, or the one the qmax records'})`,
    ]);
  }
  if (cost.audio_s_per_request !== null) {
    rows.push(['audio per request', `${num(cost.audio_s_per_request, 2)} s (measured)`]);
  }
  for (const point of cost.points) {
    const audioHour =
      point.usd_per_audio_hour === null ? '' : `, ${usd(point.usd_per_audio_hour)} per audio-hour`;
    rows.push([
      `${POINT_LABEL[point.at]} (${num(point.rate_rps, 2)} requests/s)`,
      `${usd(point.usd_per_million_characters)} per 1M characters${audioHour} (computed)`,
    ]);
  }
  const ours = sizedPoint(cost);
  for (const ref of cost.references) {
    const ratio = ours
      ? `; this plan ${num(ours.usd_per_million_characters / ref.usd_per_million_characters, 3)}x of it`
      : '';
    rows.push([
      `vs ${ref.name}`,
      `${usd(ref.usd_per_million_characters)} per 1M characters (stated)${ratio}`,
    ]);
  }
  if (cost.note) rows.push(['note', cost.note]);
  return rows;
}

/** The cost block as lines of a terminal report (a heading, then aligned rows). */
export function costTextLines(cost: PlanCost): string[] {
  const rows = costRows(cost);
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    'cost (one instance, on demand)',
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
  ];
}

/** The cost block as a Markdown section of the PR comment and the job summary. */
export function costSection(cost: PlanCost): string[] {
  return [
    '### Cost (one instance, on demand)',
    '',
    markdownTable(
      ['figure', 'value'],
      costRows(cost).map(([label, value]) => [escapeMarkdown(label), escapeMarkdown(value)]),
    ),
  ];
}
