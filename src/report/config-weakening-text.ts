/**
 * The PR comment's call-out of config changes that weaken the release gate (src/plan/
 * config-weakening.ts): the base branch's value, the pull request's, and why it weakens the gate.
 */
import type { ConfigWeakening } from '../plan/config-weakening.js';
import { codeSpan, escapeMarkdown } from './escape-md.js';

const cell = (text: string): string => escapeMarkdown(text).replace(/\|/g, '\\|');

/** Markdown lines (none when nothing weakens the gate and there is nothing to say). */
export function configWeakeningSection(
  weakenings: readonly ConfigWeakening[] | null | undefined,
  ref: string | null | undefined,
  note: string | null | undefined,
): string[] {
  if (weakenings && weakenings.length > 0) {
    const base = ref ? ` on ${codeSpan(ref)}` : ' on the base branch';
    return [
      '### ⚠️ Config changes that weaken the gate',
      '',
      `This pull request changes the model's entry in the config (compared with the entry${base}); the release gate checks the plan against the config as changed:`,
      '',
      '| field | base | this PR | weakens the gate because |',
      '| --- | --- | --- | --- |',
      ...weakenings.map(
        (w) =>
          `| ${codeSpan(w.field, { inTable: true })} | ${cell(w.from)} | ${cell(w.to)} | ${cell(w.why)} |`,
      ),
    ];
  }
  if (note) return ['### Config changes', '', escapeMarkdown(note, { lineStart: true })];
  return [];
}
