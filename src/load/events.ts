/** `--events FILE.jsonl`: one line per finished request, written as the run goes. */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { wallOf } from './closed/engine.js';
import type { OpenLoopRecord } from './open/open-loop.js';
import type { RequestRecord } from './types.js';

export interface EventContext {
  run_index: number;
  step_index: number;
}

export interface EventsWriter {
  /** One closed-loop request (qmax). */
  write(record: RequestRecord, context: EventContext | null): void;
  /** One line as it is (an open-loop request: `openLoopEventLine`). */
  line(text: string): void;
  close(): Promise<void>;
}

const round = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

export function eventLine(record: RequestRecord, context: EventContext | null): string {
  return JSON.stringify({
    run_index: context?.run_index ?? null,
    step_index: context?.step_index ?? null,
    concurrency: record.concurrency,
    seq: record.seq,
    worker: record.worker,
    prompt_index: record.promptIndex,
    dispatched_at: new Date(wallOf(record.dispatchedAt)).toISOString(),
    ttfab_ms: round(record.ttfabMs),
    latency_ms: round(
      record.endedAt === null ? null : record.endedAt - record.dispatchedAt - (record.connectMs ?? 0),
    ),
    connect_ms: round(record.connectMs),
    outcome: record.stopped ? 'stopped' : record.outcome,
    status: record.status,
    bytes: record.bytes,
    ...audioFields(record.outcome === 'ok' ? (record.audio?.result() ?? null) : null),
    error: record.error,
  });
}

/** The audio a stream carried (seconds) and its playback stall (ms; null: one chunk or not accounted). */
const audioFields = (heard: { format: unknown; audioS: number; stallMs: number | null } | null) => ({
  audio_s: heard === null || heard.format === null ? null : round(heard.audioS),
  stall_ms: heard === null || heard.format === null ? null : round(heard.stallMs),
});

export function createEventsWriter(file: string): EventsWriter {
  mkdirSync(dirname(file), { recursive: true });
  const stream: WriteStream = createWriteStream(file, { flags: 'w' });
  let failure: Error | null = null;
  stream.on('error', (e) => {
    failure = e;
  });
  return {
    write(record, context) {
      if (!failure) stream.write(`${eventLine(record, context)}\n`);
    },
    line(text) {
      if (!failure) stream.write(`${text}\n`);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        stream.end(() => (failure ? reject(failure) : resolve()));
      }),
  };
}

/**
 * One open-loop request as an events line (goodput: its rung and rate; drill: its phase). `intended_at` is what `--replay` reads back, so an
 * events file replays the schedule it was sent on (not the late sends).
 */
export function openLoopEventLine(
  record: OpenLoopRecord,
  context: {
    shard: string | null;
    rung_index?: number;
    rate_rps?: number;
    phase?: string | null;
  } | null = null,
): string {
  const iso = (mono: number | null) => (mono === null ? null : new Date(wallOf(mono)).toISOString());
  return JSON.stringify({
    shard: context?.shard ?? null,
    ...(context?.rung_index === undefined ? {} : { rung_index: context.rung_index }),
    ...(context?.rate_rps === undefined ? {} : { rate_rps: context.rate_rps }),
    ...(context?.phase === undefined ? {} : { phase: context.phase }),
    seq: record.seq,
    window: record.window,
    prompt_index: record.promptIndex,
    intended_at: iso(record.intendedAt),
    sent_at: iso(record.sentAt),
    send_lag_ms: round(record.sendLagMs),
    ttfab_intended_ms: round(record.ttfabIntendedMs),
    ttfab_sent_ms: round(record.ttfabSentMs),
    latency_intended_ms: round(record.latencyIntendedMs),
    latency_sent_ms: round(record.latencySentMs),
    connect_ms: round(record.connectMs),
    outcome: record.stopped ? 'stopped' : record.outcome,
    status: record.status,
    bytes: record.bytes,
    audio_s: round(record.audioS ?? null),
    stall_ms: round(record.stallMs ?? null),
    error: record.error,
  });
}
