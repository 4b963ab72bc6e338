/** A drill's failures by kind (outcome, message): counted, the commonest kept. Pure. */
import type { DrillData } from '../model/index.js';

/** Distinct failure messages kept (a drill's failures are usually one or two kinds). */
export const MAX_FAILURE_KINDS = 20;

export type Failure = DrillData['failures'][number];

/** Failures by (outcome, message): the commonest MAX_FAILURE_KINDS, counts added. */
export function addFailures(into: Map<string, Failure>, from: Iterable<Failure>): void {
  for (const f of from) {
    const key = `${f.outcome} ${f.error}`;
    const seen = into.get(key);
    if (seen) {
      seen.count += f.count;
      seen.first_t = Math.min(seen.first_t, f.first_t);
    } else into.set(key, { ...f });
  }
}

export const topFailures = (failures: Map<string, Failure>): Failure[] =>
  [...failures.values()]
    .sort((a, b) => b.count - a.count || a.first_t - b.first_t)
    .slice(0, MAX_FAILURE_KINDS);
