import { describe, expect, it } from 'vitest';
import { renderRehearsalSummary } from '../../src/report/rehearse-text.js';

const summary = (files: string[], cwd: string) =>
  renderRehearsalSummary(
    {
      model: 'reference-tts',
      endpoint: 'speech-reference-tts',
      outDir: '/home/me/project/artifacts/local',
      steps: [{ step: 'plan', seconds: 0.1, exitCode: 0, files }],
      drift: null,
      qmax: null,
      ttotal: null,
      plan: null,
      validate: null,
      previews: null,
      failed: null,
      totalSeconds: 1,
      containerPids: [],
      device: 'cpu',
    },
    cwd,
  );

describe('the rehearsal summary', () => {
  it('names the files it wrote relative to where it ran, and keeps outside paths whole (prevents a summary of unopenable or misleading paths)', () => {
    const text = summary(
      ['/home/me/project/artifacts/local/plan-reference-tts.json', '/tmp/elsewhere/x.json'],
      '/home/me/project',
    );
    expect(text).toContain('\n  artifacts/local/plan-reference-tts.json\n');
    expect(text).toContain('\n  /tmp/elsewhere/x.json\n');
    expect(text).not.toContain('../');
  });
});
