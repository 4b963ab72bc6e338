/**
 * What the action prints to the step's log, made inert: the runner reads workflow commands from
 * the log (`::add-mask::`, `::error::`, `::stop-commands::` at the start of a line, and the older
 * `##[command]` form anywhere in one), and reports carry text from files a pull request can
 * write (artifact ids, file names, journal command lines). Any text that contains `::` or `##[`
 * is printed between `::stop-commands::<token>` and `::<token>::` with a fresh random token, so
 * the runner processes no command inside it; other text is printed as it is. Annotations
 * (`core.error`, `core.warning`, `core.notice`) escape their own text and stay as they are.
 */
import { randomBytes } from 'node:crypto';
import * as core from '@actions/core';
import { createProgressRenderer, type ProgressSink, progressLine } from '../load/progress.js';

const COMMAND_LIKE = /::|##\[/;

/** The lines to print for `text`: itself, or itself fenced off from the runner's command parser. */
export function inertLines(text: string, token: string = randomBytes(16).toString('hex')): string[] {
  if (!COMMAND_LIKE.test(text)) return [text];
  return [`::stop-commands::${token}`, text, `::${token}::`];
}

/** core.info for text that may carry anything (a report, a file name, a journal's command). */
export function info(text: string): void {
  for (const line of inertLines(text)) core.info(line);
}

/**
 * The commands' progress in the step's log: the ladder's own `::group::` lines stay commands,
 * every other line a command emits (which may quote a file, an ARN, a journal, a log stream's
 * name) is printed inert.
 */
export function actionProgress(
  out: { write(text: string): unknown } = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): ProgressSink {
  const render = createProgressRenderer(out, env);
  return (event) => {
    if (event.type === 'rung-start' || event.type === 'rung-tick' || event.type === 'rung-end') {
      render(event);
      return;
    }
    // Every other event is a line that may quote what AWS or a file returned (a log stream's name).
    const text = progressLine(event);
    if (text !== null) for (const line of inertLines(text)) out.write(`${line}\n`);
  };
}
