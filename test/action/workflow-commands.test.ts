/**
 * Inputs cannot speak to the runner: text from files a pull request can write (an artifact's
 * run_id, file names, a journal's command line) reaches the step's log, and the runner reads
 * workflow commands from that log. Everything the action prints is checked here with a parser
 * that does what the runner does: `::command args::data` at the start of a line (after leading
 * whitespace), `##[command args]data` anywhere in a line, both suspended between
 * `::stop-commands::TOKEN` and `::TOKEN::`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionProgress, inertLines } from '../../src/action/log.js';
import { makeWorkspace, runStep } from './run-action.js';
import { type Command, processedCommands } from './runner-commands.js';

const QMAX = 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json';

function workspaceWithRunId(runId: string): string {
  const workspace = makeWorkspace();
  const file = join(workspace, 'artifacts', QMAX);
  const json = JSON.parse(readFileSync(file, 'utf8'));
  json.run_id = runId;
  writeFileSync(file, JSON.stringify(json, null, 2));
  return workspace;
}

const injected = (commands: Command[]) =>
  commands.filter((c) => c.command === 'add-mask' || /pwned|secret-token/.test(c.data));

describe('workflow commands in what the action prints', () => {
  it('the parser finds what the runner would run (so an inert log is really inert)', () => {
    expect(processedCommands('::add-mask::x\n  ::error::y\nplain ##[warning]z')).toEqual([
      { command: 'add-mask', data: 'x' },
      { command: 'error', data: 'y' },
      { command: 'warning', data: 'z' },
    ]);
    expect(processedCommands(inertLines('a\n::add-mask::x\nb ##[error]y', 'tok').join('\n'))).toEqual([]);
    expect(inertLines('no command here')).toEqual(['no command here']);
  });

  it('an artifact run_id with a newline and ::add-mask:: / ::error is refused and reaches the runner as no command', async () => {
    const run = await runStep({
      entry: 'main',
      workspace: workspaceWithRunId('b8fa8ef48043\n::add-mask::secret-token\n::error title=pwned::injected'),
      eventName: 'workflow_dispatch',
      inputs: { command: 'plan', model: 'kokoro-82m' },
    });
    expect(run.status, run.stdout).toBe(2);
    expect(injected(processedCommands(run.stdout + run.stderr))).toEqual([]);
  });

  it('an artifact run_id carrying ::error and ##[add-mask] on one line is printed (inert), never run', async () => {
    const runId = 'x1 ##[add-mask]secret-token ::error::pwned';
    const run = await runStep({
      entry: 'main',
      workspace: workspaceWithRunId(runId),
      eventName: 'workflow_dispatch',
      inputs: { command: 'plan', model: 'kokoro-82m' },
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(runId);
    expect(injected(processedCommands(run.stdout + run.stderr))).toEqual([]);
  });

  it('a command’s progress lines (a journal’s command line, a file name) are printed inert; the ladder’s own groups stay commands', () => {
    let out = '';
    const sink = actionProgress({ write: (t: string) => (out += t) }, { GITHUB_ACTIONS: 'true' });
    sink({ type: 'log', line: 'freeze: journal of `scalegate qmax ::add-mask::secret-token`' });
    sink({ type: 'log', line: 'plain line' });
    sink({ type: 'rung-start', runIndex: 0, stepIndex: 0, concurrency: 4 });
    expect(out).toContain('::add-mask::secret-token');
    expect(processedCommands(out)).toEqual([{ command: 'group', data: 'run 1 rung 1: concurrency 4' }]);
  });

  it('a typed progress line quoting what AWS returned (a log stream named with `::`) is printed inert too', () => {
    let out = '';
    const sink = actionProgress({ write: (t: string) => (out += t) }, { GITHUB_ACTIONS: 'true' });
    sink({ type: 'ttotal-stage', stage: 'log-stream', name: 'AllTraffic/::add-mask::secret-token' });
    sink({ type: 'drill-phase', name: 'surge', rateRps: 2, seconds: 60 });
    expect(out).toContain('ttotal: new instance log stream AllTraffic/::add-mask::secret-token');
    expect(out).toContain('drill: surge phase, 2.00 requests/s for 60 s\n');
    expect(processedCommands(out)).toEqual([]);
  });
});
