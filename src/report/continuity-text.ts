/**
 * Playback continuity in the reports (qmax, goodput, drill): per rung, the stall p95 with its
 * interval, the underrun share, the real-time factor and the audio throughput, each labelled
 * measured; and which SLO bounded the ladder.
 */
import type { AudioSummary, Continuity } from '../model/artifacts.js';

const ms = (v: number | null): string => (v === null ? 'a miss' : `${v.toFixed(1)} ms`);
const pct = (v: number | null): string => (v === null ? '-' : `${(v * 100).toFixed(1)} %`);
const num = (v: number | null, digits = 2): string => (v === null ? '-' : v.toFixed(digits));

/** One line of a rung's audio (label: e.g. `c=4` or `12 req/s`). */
export function audioLine(label: string, audio: AudioSummary, verdict?: string | null): string {
  const ci = audio.stall_p95_ci_ms
    ? ` [${audio.stall_p95_ci_ms.low.toFixed(1)}, ${audio.stall_p95_ci_ms.high.toFixed(1)}]`
    : '';
  const stall =
    audio.multi_chunk > 0
      ? `stall p95 ${ms(audio.stall_p95_ms)}${ci}, underrun share ${pct(audio.underrun_share)}`
      : 'stall not applicable (single-chunk streams only)';
  return (
    `  ${label}: ${stall}${verdict ? ` (continuity ${verdict})` : ''}; RTF p50 ${num(audio.rtf_p50)} p95 ${num(audio.rtf_p95)}; ` +
    `${audio.characters_per_s.toFixed(0)} chars/s, ${audio.audio_s_per_s.toFixed(2)} audio-s/s per instance; ` +
    `${audio.multi_chunk} multi-chunk / ${audio.single_chunk} single-chunk streams (measured)`
  );
}

const BOUND: Record<Continuity['bounded_by'], string> = {
  first_audio: 'bounded by first audio',
  continuity: 'bounded by continuity (playback stalls)',
  both: 'bounded by both first audio and continuity',
  none: 'bounded by neither SLO (no breach measured above it)',
};

/** The ladder's continuity lines: its SLO, the format heard, which SLO bounded `what`. */
export function continuityLines(what: string, continuity: Continuity | null | undefined): string[] {
  if (!continuity)
    return [`${what}: decided on first audio only (no underrun SLO; stall figures are measured, not judged)`];
  const format = continuity.format
    ? `${continuity.format.sample_rate_hz} Hz, ${continuity.format.channels} ch, ${continuity.format.bits_per_sample}-bit (${continuity.format.origin === 'header' ? 'measured: WAV header' : 'assumed: request.audio_format'})`
    : 'no audio format known';
  const lines = [
    `${what} ${BOUND[continuity.bounded_by]}; underrun SLO p95 stall <= ${continuity.underrun_slo_ms} ms, client buffer ${continuity.client_buffer_ms} ms; audio ${format}`,
  ];
  if (continuity.note) lines.push(`continuity: ${continuity.note}`);
  return lines;
}
