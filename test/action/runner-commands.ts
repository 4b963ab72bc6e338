/**
 * What the runner does with a step's log: it processes workflow commands, `::command args::data`
 * at the start of a line (after leading whitespace) and `##[command args]data` anywhere in a line,
 * both suspended between `::stop-commands::TOKEN` and `::TOKEN::`.
 */
export interface Command {
  command: string;
  data: string;
}

/** The workflow commands a runner would process in `log`, in order. */
export function processedCommands(log: string): Command[] {
  const processed: Command[] = [];
  let stopToken: string | null = null;
  for (const raw of log.split(/\r?\n/)) {
    const line = raw.trimStart();
    let parsed: Command | null = null;
    const v2 = /^::([^\s:]+)(?: [^:]*)?::(.*)$/.exec(line);
    if (v2) parsed = { command: v2[1] as string, data: v2[2] as string };
    else {
      const at = raw.indexOf('##[');
      const end = at >= 0 ? raw.indexOf(']', at) : -1;
      if (at >= 0 && end > at) {
        const inner = raw.slice(at + 3, end);
        parsed = { command: inner.split(' ')[0] as string, data: raw.slice(end + 1) };
      }
    }
    if (!parsed) continue;
    if (stopToken !== null) {
      if (parsed.command === stopToken) stopToken = null;
      continue;
    }
    if (parsed.command === 'stop-commands') {
      stopToken = parsed.data;
      continue;
    }
    processed.push(parsed);
  }
  return processed;
}
