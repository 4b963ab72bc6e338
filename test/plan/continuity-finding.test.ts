import { describe, expect, it } from 'vitest';
import type { AudioSummary, QmaxArtifact } from '../../src/model/index.js';
import { continuityFinding } from '../../src/plan/continuity-finding.js';

const audio = (share: number, p95: number | null): AudioSummary => ({
  streams: 100,
  multi_chunk: 100,
  single_chunk: 0,
  underrun_share: share,
  stall_p50_ms: 0,
  stall_p95_ms: p95,
  stall_p95_ci_ms: null,
  max_chunk_gap_ms: 80,
  characters_mean: 60,
  audio_s_mean: 4,
  rtf_p50: 0.5,
  rtf_p95: 0.8,
  characters_per_s: 120,
  audio_s_per_s: 8,
  client_buffer_ms: 0,
});

/** The fields the finding reads; the rest of a qmax artifact does not matter to it. */
const qmaxWith = (a: AudioSummary | null, continuity: QmaxArtifact['continuity'] = null) =>
  ({
    q_max: 4,
    steps: [{ concurrency: 4, verdict: 'pass', audio: a }],
    continuity,
  }) as unknown as QmaxArtifact;

describe('continuity_under_load', () => {
  it('is not evaluated for a qmax that recorded no audio (older artifacts keep their findings)', () => {
    expect(continuityFinding(qmaxWith(null), 'm')).toBeNull();
  });

  it('warns when the underrun SLO bounded Q_max (continuity, not first audio, sets the capacity)', () => {
    const f = continuityFinding(
      qmaxWith(audio(0, 0), {
        underrun_slo_ms: 50,
        client_buffer_ms: 0,
        format: null,
        bounded_by: 'continuity',
        note: null,
      }),
      'm',
    );
    expect(f).toMatchObject({ name: 'continuity_under_load', verdict: 'warn' });
  });

  it('is ok when the SLO held and first audio bounded Q_max', () => {
    const f = continuityFinding(
      qmaxWith(audio(0.2, 10), {
        underrun_slo_ms: 50,
        client_buffer_ms: 0,
        format: null,
        bounded_by: 'first_audio',
        note: null,
      }),
      'm',
    );
    expect(f?.verdict).toBe('ok');
  });

  it('without an underrun SLO warns (never stops) when more than 5 % of the streams at Q_max stalled', () => {
    expect(continuityFinding(qmaxWith(audio(0.06, 30)), 'm')?.verdict).toBe('warn');
    expect(continuityFinding(qmaxWith(audio(0.04, 0)), 'm')?.verdict).toBe('ok');
  });
});
