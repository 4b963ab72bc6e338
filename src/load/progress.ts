/**
 * Progress of the long commands, for stderr. A ladder (qmax): a live line on a terminal (rung,
 * elapsed, live p95, in-flight), one line per rung otherwise, wrapped in `::group::` log groups on
 * GitHub Actions. goodput (each rate's start and verdict), ttotal (each stage reached) and drill
 * (its schedule, each phase, the desired count it sets, the end of the load): one line per event.
 * Between those, goodput's rungs and the drill's phases beat every second (elapsed, finished, in
 * flight): a live line on a terminal, one line every HEARTBEAT_LOG_S seconds otherwise.
 * The commands emit typed events; this only renders them (`log` is a line as it is).
 */
import type { RungTick } from './closed/rung.js';
import type { Heartbeat } from './heartbeat.js';

/** Seconds between two heartbeat lines where no live line can be drawn (a log, GitHub Actions). */
export const HEARTBEAT_LOG_S = 20;

/** A goodput rung or a drill phase still running: what it is, how long it lasts, its pulse. */
export interface LoadHeartbeat extends Heartbeat {
  /** `goodput rung 3 (12/s)`, `drill surge phase`. */
  label: string;
  /** Seconds the rung or schedule lasts in all (elapsedS counts towards it). */
  totalS: number;
}

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

/** A shard of a sharded run: shard `index` of `count`. */
export interface ShardLabel {
  index: number;
  count: number;
}

/** goodput: one rate of the ladder starts. */
export interface RateStart {
  /** 0-based position in the ladder. */
  index: number;
  rateRps: number;
  holdS: number;
  settleS: number;
  seed: number;
  /** Set when the run is one shard of several. */
  shard: ShardLabel | null;
}

/** goodput: one rate measured and judged (its verdict figures). */
export interface RateEnd {
  index: number;
  rateRps: number;
  verdict: string;
  /** p95 TTFAB from the intended send, and its confidence interval. */
  p95Ms: number | null;
  ci: { low: number; high: number } | null;
  sentRps: number;
  goodputRps: number;
  overflowFraction: number;
  errorFraction: number;
  sendLagP99Ms: number | null;
  meanInSystem: number;
}

/** ttotal: a stage of the timed scale-out reached (wall times in ms since the epoch). */
export type TtotalStage =
  | { stage: 'probe-applied'; atMs: number; holdS: number }
  | { stage: 'desired-set'; atMs: number; fromInstances: number; toInstances: number }
  | { stage: 'log-stream'; name: string }
  | { stage: 'in-service'; atMs: number; instances: number }
  | { stage: 'recovered'; atMs: number; p95Ms: number };

/** drill: a phase of the schedule as it is run. */
export interface DrillPhaseLine {
  name: string;
  rateRps: number;
  seconds: number;
}

export type ProgressEvent =
  | { type: 'log'; line: string }
  | { type: 'rung-start'; runIndex: number; stepIndex: number; concurrency: number }
  | { type: 'rung-tick'; runIndex: number; stepIndex: number; tick: RungTick }
  | { type: 'rung-end'; summary: RungSummaryLine }
  | ({ type: 'rate-start' } & RateStart)
  | ({ type: 'rate-end' } & RateEnd)
  | ({ type: 'ttotal-stage' } & TtotalStage)
  | { type: 'drill-desired'; fromInstances: number | null; toInstances: number }
  | { type: 'drill-schedule'; phases: DrillPhaseLine[]; startAt: string; shard: ShardLabel | null }
  | ({ type: 'drill-phase' } & DrillPhaseLine)
  | { type: 'drill-load-end'; sent: number; dropped: number; scheduleS: number }
  | ({ type: 'load-heartbeat' } & LoadHeartbeat)
  /** drill: the observer saw the fleet change (desired or current count); prints nothing. */
  | { type: 'drill-capacity'; tS: number; status: string; desired: number | null; current: number | null };

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

const iso = (wallMs: number): string => new Date(wallMs).toISOString();

export function formatHeartbeat(e: LoadHeartbeat): string {
  return `${e.label}: ${e.elapsedS.toFixed(0)} of ${e.totalS.toFixed(0)} s, ${e.finished} requests finished, ${e.inFlight} in flight`;
}

export function formatRateStart(e: RateStart): string {
  const shard = e.shard ? `, shard ${e.shard.index}/${e.shard.count}` : '';
  return `rung ${e.index + 1}: ${e.rateRps}/s Poisson for ${e.holdS} s (settle ${e.settleS} s), seed ${e.seed}${shard}`;
}

export function formatRateEnd(e: RateEnd): string {
  const p95 = e.p95Ms === null ? '-' : `${e.p95Ms.toFixed(0)} ms`;
  const ci = e.ci ? ` [${e.ci.low.toFixed(0)}, ${e.ci.high.toFixed(0)}]` : '';
  return (
    `rung ${e.index + 1}: ${e.rateRps}/s ${e.verdict}: p95 TTFAB ${p95}${ci} from the intended send, sent ${e.sentRps.toFixed(2)}/s, goodput ${e.goodputRps.toFixed(2)}/s, ` +
    `overflow ${(e.overflowFraction * 100).toFixed(2)} %, errors ${(e.errorFraction * 100).toFixed(2)} %, send lag p99 ${e.sendLagP99Ms ?? '-'} ms, L ${e.meanInSystem}`
  );
}

export function formatTtotalStage(e: TtotalStage): string {
  switch (e.stage) {
    case 'probe-applied':
      return `ttotal: probe applied at ${iso(e.atMs)}; holding ${e.holdS} s before the trigger`;
    case 'desired-set':
      return `ttotal: desired ${e.fromInstances} -> ${e.toInstances} at ${iso(e.atMs)} (the clock starts)`;
    case 'log-stream':
      return `ttotal: new instance log stream ${e.name}`;
    case 'in-service':
      return `ttotal: ${e.instances} instances in service at ${iso(e.atMs)}`;
    case 'recovered':
      return `ttotal: traffic recovered from ${iso(e.atMs)} (p95 ${e.p95Ms.toFixed(1)} ms)`;
  }
}

/**
 * The line an event prints (the same on a terminal, in a log file and on GitHub Actions), or
 * null for the ladder's live ticks and rung starts, which print only where they are rendered live
 * or grouped, and for the drill's fleet changes (recorded in the artifact's observations).
 */
export function progressLine(event: ProgressEvent): string | null {
  switch (event.type) {
    case 'log':
      return event.line;
    case 'rung-start':
    case 'rung-tick':
    case 'drill-capacity':
    case 'load-heartbeat':
      return null;
    case 'rung-end':
      return formatRungLine(event.summary);
    case 'rate-start':
      return formatRateStart(event);
    case 'rate-end':
      return formatRateEnd(event);
    case 'ttotal-stage':
      return formatTtotalStage(event);
    case 'drill-desired':
      return `drill: setting the desired count ${event.fromInstances ?? 'n/a'} -> ${event.toInstances} before the load`;
    case 'drill-schedule': {
      const phases = event.phases.map((p) => `${p.name} ${p.rateRps.toFixed(2)}/s ${p.seconds} s`).join(', ');
      const shard = event.shard ? ` (shard ${event.shard.index}/${event.shard.count})` : '';
      return `drill: ${phases} from ${event.startAt}${shard}`;
    }
    case 'drill-phase':
      return `drill: ${event.name} phase, ${event.rateRps.toFixed(2)} requests/s for ${event.seconds} s`;
    case 'drill-load-end':
      return `drill: load done (${event.sent} sent, ${event.dropped} dropped at the client) after ${event.scheduleS} s of schedule`;
  }
}

export function createProgressRenderer(
  out: ProgressOutput,
  env: NodeJS.ProcessEnv = process.env,
): ProgressSink {
  const actions = env.GITHUB_ACTIONS === 'true';
  const live = Boolean(out.isTTY) && !actions;
  let liveShown = false;
  /** The heartbeat last printed as a line (where nothing is live): its label and elapsed time. */
  let beatLogged: { label: string; elapsedS: number } | null = null;
  const clearLive = () => {
    if (liveShown) {
      out.write('\r\x1b[2K');
      liveShown = false;
    }
  };
  return (event) => {
    switch (event.type) {
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
      case 'load-heartbeat': {
        if (live) {
          out.write(`\r\x1b[2K${formatHeartbeat(event)}`);
          liveShown = true;
          break;
        }
        // A new rung or phase counts from its own first second (its start already has its line).
        if (beatLogged?.label !== event.label)
          beatLogged = { label: event.label, elapsedS: event.elapsedS - 1 };
        if (event.elapsedS - beatLogged.elapsedS < HEARTBEAT_LOG_S) break;
        beatLogged = { label: event.label, elapsedS: event.elapsedS };
        out.write(`${formatHeartbeat(event)}\n`);
        break;
      }
      case 'rung-end':
        clearLive();
        out.write(`${formatRungLine(event.summary)}\n`);
        if (actions) out.write('::endgroup::\n');
        break;
      default: {
        const line = progressLine(event);
        if (line === null) break;
        clearLive();
        out.write(`${line}\n`);
      }
    }
  };
}
