/**
 * The qmax section of the PR comment and job summary with playback continuity: the audio line of
 * each rung and which SLO bounded Q_max, with provenance words; nothing new for a run without
 * audio (older artifacts keep their section).
 */
import { describe, expect, it } from 'vitest';
import type { AudioSummary, QmaxArtifact } from '../../src/model/artifacts.js';
import { readArtifact } from '../../src/model/index.js';
import { qmaxInputSection } from '../../src/report/markdown-sections.js';
import { anchorQmaxFile } from '../helpers/anchor.js';

const anchor = readArtifact('qmax', anchorQmaxFile);
const audio = (stallP95: number | null): AudioSummary => ({
  streams: 200,
  multi_chunk: 200,
  single_chunk: 0,
  underrun_share: stallP95 === 0 ? 0 : 0.8,
  stall_p50_ms: stallP95 === null ? 40 : stallP95 / 2,
  stall_p95_ms: stallP95,
  stall_p95_ci_ms: stallP95 === null ? null : { low: stallP95 * 0.9, high: stallP95 * 1.1 },
  max_chunk_gap_ms: 120,
  characters_mean: 61.5,
  audio_s_mean: 3.2,
  rtf_p50: 0.4,
  rtf_p95: 0.6,
  characters_per_s: 615,
  audio_s_per_s: 32,
  client_buffer_ms: 0,
});

const withContinuity = (): QmaxArtifact => {
  const steps = anchor.steps.map((s, i) => ({
    ...s,
    audio: audio(i === anchor.steps.length - 1 ? 250 : 0),
    continuity_verdict: i === anchor.steps.length - 1 ? ('fail' as const) : ('pass' as const),
  }));
  return {
    ...anchor,
    steps,
    continuity: {
      underrun_slo_ms: 100,
      client_buffer_ms: 0,
      format: {
        container: 'wav',
        sample_rate_hz: 24_000,
        channels: 1,
        bits_per_sample: 16,
        origin: 'header',
      },
      bounded_by: 'continuity',
      note: null,
    },
  };
};

describe('the qmax markdown section with continuity', () => {
  it('shows which SLO bounded Q_max, the underrun SLO and the format heard (measured: WAV header)', () => {
    const md = qmaxInputSection({ artifact: withContinuity(), file: null }).join('\n');
    expect(md).toMatch(
      /Q\\_max bounded by continuity \(playback stalls\); underrun SLO p95 stall \\<= 100 ms/,
    );
    expect(md).toMatch(/24000 Hz, 1 ch, 16-bit \(measured: WAV header\)/);
  });

  it('tabulates each rung’s stall p95 with its interval, labelled measured, and its continuity verdict', () => {
    const md = qmaxInputSection({ artifact: withContinuity(), file: null }).join('\n');
    expect(md).toMatch(/\| rung \| stall p95 ms \(measured\) \| its CI ms \|/);
    expect(md).toMatch(
      /\| 250\.0 \| 225\.0–275\.0 \| 80\.0 % \| 0\.40 \/ 0\.60 \| 615 \| 32\.00 \| 200 \/ 0 \| fail \|/,
    );
  });

  it('adds nothing to a qmax without audio (prevents a continuity line on runs that never accounted audio)', () => {
    const plain = qmaxInputSection({ artifact: anchor, file: null }).join('\n');
    expect(plain).not.toMatch(/stall|continuity/);
  });
});
