/**
 * The continuity side of a ladder, pure: a rung decided on two SLOs (first audio and the p95 of
 * per-stream stall time), and which of them set the bound (Q_max or lambda_max).
 */
import type { AudioFormat, BoundedBy, Continuity, GoodputRung, QmaxStep } from '../model/artifacts.js';
import type { RungDecision } from '../stats/rung-decision.js';

type Verdict = RungDecision['verdict'];

/**
 * A rung decided on two SLOs: it fails when either fails, passes only when both pass, and is
 * otherwise undecided. Without a continuity verdict, first audio alone decides.
 */
export function combinedVerdict(firstAudio: Verdict, continuity: Verdict | null | undefined): Verdict {
  if (continuity === null || continuity === undefined) return firstAudio;
  if (firstAudio === 'fail' || continuity === 'fail') return 'fail';
  if (firstAudio === 'pass' && continuity === 'pass') return 'pass';
  return 'undecided';
}

/** Which SLO failed at a failing step: first audio, continuity, or both. */
function failedOn(step: QmaxStep): BoundedBy {
  const continuity = step.continuity_verdict === 'fail';
  const firstAudio = (step.first_audio_verdict ?? (continuity ? null : step.verdict)) === 'fail';
  return firstAudio && continuity ? 'both' : continuity ? 'continuity' : 'first_audio';
}

/**
 * The continuity block of a ladder: its SLO, the audio format heard, and which SLO set the bound
 * (the failing steps at the bracket above `bound`); null without an underrun SLO.
 */
export function continuityRecord(
  settings: { underrunSloMs?: number | null; clientBufferMs?: number },
  records: readonly { step: QmaxStep; observation: { audioFormat?: AudioFormat | null } }[],
  upper: number | null,
): Continuity | null {
  const slo = settings.underrunSloMs ?? null;
  if (slo === null) return null;
  const format = records.find((r) => r.observation.audioFormat)?.observation.audioFormat ?? null;
  const judged = records.some((r) => r.step.continuity_verdict);
  const atUpper = records.filter(
    (r) => r.step.concurrency === upper && r.step.verdict === 'fail' && !r.step.client_bound,
  );
  const sides = new Set(atUpper.map((r) => failedOn(r.step)));
  return continuityBlock(
    slo,
    settings.clientBufferMs ?? 0,
    format,
    judged,
    upper === null ? new Set() : sides,
  );
}

/**
 * The continuity block from what a ladder saw: `bounded_by` from the SLOs that failed at the
 * lowest breach above the bound (`none` when nothing there failed), and why continuity was not
 * judged when it was not.
 */
function continuityBlock(
  slo: number,
  clientBufferMs: number,
  format: AudioFormat | null,
  judged: boolean,
  sides: ReadonlySet<BoundedBy>,
): Continuity {
  const boundedBy: BoundedBy =
    sides.size === 0
      ? 'none'
      : sides.has('both') || (sides.has('first_audio') && sides.has('continuity'))
        ? 'both'
        : sides.has('continuity')
          ? 'continuity'
          : 'first_audio';
  const note =
    format === null
      ? 'no response carried audio scalegate could read (no WAV header and no request.audio_format): continuity not judged'
      : !judged
        ? 'no stream had more than one chunk: continuity not applicable, first audio alone decided'
        : null;
  return { underrun_slo_ms: slo, client_buffer_ms: clientBufferMs, format, bounded_by: boundedBy, note };
}

/** Which SLO failed at a failing rung. */
function failedAtRate(r: GoodputRung): BoundedBy {
  const continuity = r.continuity_verdict === 'fail';
  const firstAudio = r.first_audio_verdict === 'fail' || (!continuity && r.verdict === 'fail');
  return firstAudio && continuity ? 'both' : continuity ? 'continuity' : 'first_audio';
}

/**
 * The continuity block of a goodput ladder: its SLO, the format heard, and which SLO failed at
 * the lowest breach above lambda_max (`none` without one); null without an underrun SLO.
 */
export function goodputContinuityRecord(
  settings: { underrunSloMs?: number | null; clientBufferMs?: number },
  rungs: readonly GoodputRung[],
  breachRate: number | null,
): Continuity | null {
  const slo = settings.underrunSloMs ?? null;
  if (slo === null) return null;
  let format: AudioFormat | null = null;
  for (const r of rungs) format ??= r.histograms.windows.find((w) => w.audio?.format)?.audio?.format ?? null;
  const judged = rungs.some((r) => r.continuity_verdict);
  const sides = new Set(
    rungs.filter((r) => r.rate_rps === breachRate && r.verdict === 'fail').map((r) => failedAtRate(r)),
  );
  return continuityBlock(
    slo,
    settings.clientBufferMs ?? 0,
    format,
    judged,
    breachRate === null ? new Set() : sides,
  );
}
