/**
 * `continuity_under_load`: playback continuity at Q_max. Evaluated when the qmax recorded audio.
 * - underrun SLO set, Q_max bounded by continuity (or both): warn. The listener's stutter, not
 *   first audio, sets the capacity; the plan is sized on it (that is the point of the SLO).
 * - underrun SLO set, otherwise: ok (each rung up to Q_max passed both SLOs).
 * - no underrun SLO, and more than UNDERRUN_WARN_SHARE of Q_max's multi-chunk streams stalled, or
 *   a stall p95 that is a miss: warn, with the fix of setting the SLO. Never a stop: without an
 *   underrun SLO there is no stated continuity contract to break, only a measured symptom.
 */
import type { Finding, QmaxArtifact } from '../model/index.js';

/** Share of stalled multi-chunk streams at Q_max above which a plan without an underrun SLO warns. */
export const UNDERRUN_WARN_SHARE = 0.05;

export function continuityFinding(qmax: QmaxArtifact, model: string): Finding | null {
  const atQmax = qmax.steps.find((s) => s.concurrency === qmax.q_max && s.verdict === 'pass' && s.audio);
  const audio = atQmax?.audio ?? null;
  const anyAudio = qmax.steps.some((s) => s.audio);
  if (!anyAudio && !qmax.continuity) return null;
  const name = 'continuity_under_load';
  const stall =
    audio && audio.multi_chunk > 0
      ? `stall p95 at Q_max ${audio.stall_p95_ms === null ? 'a miss' : `${audio.stall_p95_ms.toFixed(1)} ms`}, ` +
        `underrun share ${((audio.underrun_share ?? 0) * 100).toFixed(1)} % (measured)`
      : 'no multi-chunk stream at Q_max (continuity not applicable)';
  const continuity = qmax.continuity ?? null;
  if (continuity) {
    if (continuity.bounded_by === 'continuity' || continuity.bounded_by === 'both') {
      return {
        name,
        verdict: 'warn',
        detail: `Q_max ${qmax.q_max} bounded by ${continuity.bounded_by === 'both' ? 'both SLOs' : 'continuity'} (underrun SLO ${continuity.underrun_slo_ms} ms); ${stall}`,
        fix: `streams stall before first audio degrades: a larger client buffer (client_buffer_ms), a faster device or a looser underrun_slo_ms for ${model}`,
      };
    }
    return {
      name,
      verdict: 'ok',
      detail: `underrun SLO ${continuity.underrun_slo_ms} ms held up to Q_max; ${stall}`,
      fix: null,
    };
  }
  const stalled =
    audio !== null &&
    audio.multi_chunk > 0 &&
    (audio.stall_p95_ms === null || (audio.underrun_share ?? 0) > UNDERRUN_WARN_SHARE);
  if (stalled) {
    return {
      name,
      verdict: 'warn',
      detail: `no underrun SLO: Q_max ${qmax.q_max} was decided on first audio alone; ${stall}`,
      fix: `set underrun_slo_ms for ${model} (or --underrun-slo-ms) and re-measure: listeners hear stutter at Q_max`,
    };
  }
  return { name, verdict: 'ok', detail: `no underrun SLO; ${stall}`, fix: null };
}
