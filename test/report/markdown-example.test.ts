/**
 * docs/example-comment.md is the real PR comment the action writes for the committed anchor
 * artifacts (Kokoro-82M on ml.g5.xlarge), rendered by src/report/markdown.ts. This test keeps
 * the documentation honest: it fails when the renderer changes and the example does not.
 * Regenerate with: UPDATE_EXAMPLE_COMMENT=1 npx vitest run test/report/markdown-example.test.ts
 * then `npx biome format --write docs/example-comment.md` (Biome pads table cells; padding does
 * not change how a table renders, so the comparison ignores it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArtifact } from '../../src/model/index.js';
import { renderComment } from '../../src/report/markdown.js';
import { VERSION } from '../../src/version.js';
import { anchorQmaxFile, anchorTtotalFile, repoRoot } from '../helpers/anchor.js';

const exampleFile = join(repoRoot, 'docs', 'example-comment.md');
const rel = (file: string) => file.slice(repoRoot.length + 1);

/** Table rows without cell padding: `| a   | b |` and `| a | b |` render the same. */
const unpadded = (markdown: string): string =>
  markdown
    .split('\n')
    .map((line) => (line.startsWith('|') ? line.replace(/ *\| */g, '|').replace(/-{3,}/g, '---') : line))
    .join('\n');

function exampleComment(): string {
  const planFile = 'artifacts/plan-kokoro-82m.json';
  return renderComment(
    {
      modelName: 'kokoro-82m',
      command: 'plan',
      exitCode: 0,
      version: VERSION,
      plan: { artifact: readArtifact('plan', join(repoRoot, planFile)), file: planFile },
      qmax: { artifact: readArtifact('qmax', anchorQmaxFile), file: rel(anchorQmaxFile) },
      ttotal: { artifact: readArtifact('ttotal', anchorTtotalFile), file: rel(anchorTtotalFile) },
      basePlan: null,
      baseNote: `main has no ${planFile}: this is the model's first plan.`,
      run: {
        id: '9000000001',
        attempt: 1,
        at: '2026-11-29T17:00:00.000Z',
        url: 'https://github.com/acme/speech/actions/runs/9000000001',
        sha: '9d3e1f2a4b5c6d7e8f9012a3b4c5d6e7f8091a2b',
      },
    },
    { runId: '9000000001', attempt: 1, at: '2026-11-29T17:00:00.000Z' },
  );
}

describe('docs/example-comment.md', () => {
  it('is the comment the renderer writes for the anchor artifacts (the README shows the real thing)', () => {
    const rendered = exampleComment();
    if (process.env.UPDATE_EXAMPLE_COMMENT) writeFileSync(exampleFile, rendered);
    expect(unpadded(readFileSync(exampleFile, 'utf8'))).toBe(unpadded(rendered));
  });
});
