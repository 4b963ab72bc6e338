/**
 * Playback continuity in the PR comment and job summary (markdown): per rung (qmax) or rate
 * (goodput), the stall p95 with its interval, the underrun share, the real-time factor and the
 * audio throughput, each measured; then which SLO bounded Q_max or lambda_max.
 */
import type { AudioSummary, Continuity, GoodputArtifact, QmaxArtifact } from '../model/artifacts.js';
import { continuityLines } from './continuity-text.js';
import { escapeMarkdown, markdownTable } from './escape-md.js';

const num = (v: number | null, digits: number): string => (v === null ? '-' : v.toFixed(digits));

interface AudioRow {
  label: string;
  audio: AudioSummary;
  continuity: string | null | undefined;
}

function audioTable(first: string, rows: readonly AudioRow[]): string {
  return markdownTable(
    [
      first,
      'stall p95 ms (measured)',
      'its CI ms',
      'underrun share',
      'RTF p50 / p95',
      'chars/s',
      'audio-s/s',
      'multi / single-chunk',
      'continuity',
    ],
    rows.map(({ label, audio: a, continuity }) => [
      escapeMarkdown(label),
      a.multi_chunk === 0
        ? 'n/a (single chunk)'
        : a.stall_p95_ms === null
          ? 'a miss'
          : a.stall_p95_ms.toFixed(1),
      a.stall_p95_ci_ms ? `${a.stall_p95_ci_ms.low.toFixed(1)}–${a.stall_p95_ci_ms.high.toFixed(1)}` : '',
      a.underrun_share === null ? '-' : `${(a.underrun_share * 100).toFixed(1)} %`,
      `${num(a.rtf_p50, 2)} / ${num(a.rtf_p95, 2)}`,
      a.characters_per_s.toFixed(0),
      a.audio_s_per_s.toFixed(2),
      `${a.multi_chunk} / ${a.single_chunk}`,
      escapeMarkdown(continuity ?? 'not judged'),
    ]),
  );
}

/** Which SLO bounded `what`, with the underrun SLO and the format heard (its provenance). */
function boundLines(what: string, continuity: Continuity | null | undefined): string[] {
  return continuityLines(what, continuity).map((l) => escapeMarkdown(l));
}

/** The qmax section's audio lines: nothing when no rung carried accountable audio. */
export function qmaxContinuityMarkdown(a: QmaxArtifact): string[] {
  const rows: AudioRow[] = a.steps.flatMap((s) =>
    s.audio
      ? [
          {
            label: `run ${s.run_index + 1} c=${s.concurrency}`,
            audio: s.audio,
            continuity: s.continuity_verdict,
          },
        ]
      : [],
  );
  if (rows.length === 0 && !a.continuity) return [];
  return [
    '',
    ...boundLines('Q_max', a.continuity),
    ...(rows.length > 0 ? ['', audioTable('rung', rows)] : []),
  ];
}

/** The goodput section's audio lines: nothing when no rate carried accountable audio. */
export function goodputContinuityMarkdown(a: GoodputArtifact): string[] {
  const rows: AudioRow[] = a.rungs.flatMap((g) =>
    g.audio ? [{ label: `${g.rate_rps}/s`, audio: g.audio, continuity: g.continuity_verdict }] : [],
  );
  if (rows.length === 0 && !a.continuity) return [];
  return [
    '',
    ...boundLines('lambda_max', a.continuity),
    ...(rows.length > 0 ? ['', audioTable('rate', rows)] : []),
  ];
}
