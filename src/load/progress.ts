/**
 * Progress of a ladder, for stderr: a live line on a terminal (rung, elapsed, live p95,
 * in-flight), one line per rung otherwise, wrapped in `::group::` log groups on GitHub Actions.
 * The command emits events; this only renders them.
 */
import type { RungTick } from './closed/rung.js';

export interface RungSummaryLine {
  runIndex: number;
  stepIndex: number;
  concurrency: number;
  verdict: string;
  p95Ms: number | null;
  ci: { low: number; high: number } | null;
  achievedRps: number;
  inFlightMean: number;
  seconds: number;
  usable: boolean;
  reason: string | null;
}

export type ProgressEvent =
  | { type: 'log'; line: string }
  | { type: 'rung-start'; runIndex: number; stepIndex: number; concurrency: number }
  | { type: 'rung-tick'; runIndex: number; stepIndex: number; tick: RungTick }
  | { type: 'rung-end'; summary: RungSummaryLine };

export type ProgressSink = (event: ProgressEvent) => void;

export const silentProgress: ProgressSink = () => {};

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

const ms = (v: number | null): string =>
  v === null ? '-' : Number.isFinite(v) ? `${v.toFixed(0)} ms` : 'no audio';

export function formatRungLine(s: RungSummaryLine): string {
  const ci = s.ci ? ` [${ms(s.ci.low)}, ${ms(s.ci.high)}]` : '';
  const usable = s.usable ? '' : ` unusable: ${s.reason ?? '?'}`;
  return (
    `run ${s.runIndex + 1} rung ${s.stepIndex + 1} c=${s.concurrency}: ${s.verdict} p95 ${ms(s.p95Ms)}${ci}, ` +
    `${s.achievedRps.toFixed(2)} req/s, in-flight ${s.inFlightMean.toFixed(2)}, ${s.seconds.toFixed(1)} s${usable}`
  );
}

export function createProgressRenderer(
  out: ProgressOutput,
  env: NodeJS.ProcessEnv = process.env,
): ProgressSink {
  const actions = env.GITHUB_ACTIONS === 'true';
  const live = Boolean(out.isTTY) && !actions;
  let liveShown = false;
  const clearLive = () => {
    if (liveShown) {
      out.write('\r\x1b[2K');
      liveShown = false;
    }
  };
  return (event) => {
    switch (event.type) {
      case 'log':
        clearLive();
        out.write(`${event.line}\n`);
        break;
      case 'rung-start':
        clearLive();
        if (actions)
          out.write(
            `::group::run ${event.runIndex + 1} rung ${event.stepIndex + 1}: concurrency ${event.concurrency}\n`,
          );
        break;
      case 'rung-tick': {
        if (!live) break;
        const t = event.tick;
        out.write(
          `\r\x1b[2Krun ${event.runIndex + 1} rung ${event.stepIndex + 1} c=${t.concurrency} ${t.phase} ` +
            `${t.elapsedS.toFixed(1)} s  p95 ${ms(t.liveP95Ms)}  in-flight ${t.inFlight}  n=${t.samples}`,
        );
        liveShown = true;
        break;
      }
      case 'rung-end':
        clearLive();
        out.write(`${formatRungLine(event.summary)}\n`);
        if (actions) out.write('::endgroup::\n');
        break;
    }
  };
}
