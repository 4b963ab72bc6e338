/**
 * The Markdown report (PR comment and job summary): what a reviewer must see, and that nothing
 * in an artifact (a file anyone can edit in a PR) can inject Markdown or HTML into it.
 */
import { describe, expect, it } from 'vitest';
import {
  type PlanArtifact,
  type QmaxArtifact,
  readArtifact,
  type TtotalArtifact,
  type ValidateArtifact,
} from '../../src/model/index.js';
import { escapeMarkdown, inlineMarkdown, markerValue } from '../../src/report/escape-md.js';
import {
  hasModelMarker,
  parseRunMarker,
  planChanges,
  type ReportInput,
  renderComment,
  renderCompactComment,
  renderReport,
} from '../../src/report/markdown.js';
import { anchorQmaxFile, anchorTtotalFile, repoRoot } from '../helpers/anchor.js';

const anchorPlan = readArtifact('plan', `${repoRoot}/artifacts/plan-kokoro-82m.json`);
const anchorQmax = readArtifact('qmax', anchorQmaxFile);
const anchorTtotal = readArtifact('ttotal', anchorTtotalFile);

const run = { id: '9000000001', attempt: 1, at: '2026-11-29T17:00:00.000Z', url: null, sha: null };

function planInput(overrides: Partial<ReportInput> = {}): ReportInput {
  return {
    modelName: 'kokoro-82m',
    command: 'plan',
    exitCode: 0,
    version: '0.1.0',
    plan: { artifact: anchorPlan, file: 'artifacts/plan-kokoro-82m.json' },
    qmax: { artifact: anchorQmax, file: 'artifacts/qmax.json' },
    ttotal: { artifact: anchorTtotal, file: 'artifacts/ttotal.json' },
    run,
    ...overrides,
  };
}

const HOSTILE = [
  '<img src=x onerror=alert(1)>',
  '<script>alert(1)</script>',
  '</details><details open>',
  '[click me](https://evil.example/phish)',
  '![pixel](https://evil.example/track.png)',
  '@acme/everyone please approve',
  'fixes #1',
  '| forged | cell |',
  '\n# forged heading\n',
  '\n- forged bullet',
  '<!-- scalegate:model=kokoro-82m -->',
  '`code` **bold** _em_ ~~strike~~ $x^2$ &amp; &#60;',
  'https://evil.example and www.evil.example',
].join(' ');

/**
 * The text outside code spans (CommonMark: a backtick run not escaped by a backslash opens a
 * span closed by the next run of the same length; code span content renders literally).
 */
function outsideCodeSpans(markdown: string): string {
  let out = '';
  for (let i = 0; i < markdown.length; ) {
    const c = markdown[i] as string;
    if (c === '\\') {
      out += markdown.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(markdown.slice(i))?.[0] ?? '`';
      const close = new RegExp(`(?<!\`)${run}(?!\`)`, 'g');
      close.lastIndex = i + run.length;
      const end = close.exec(markdown);
      if (end) {
        out += ' ';
        i = end.index + run.length;
        continue;
      }
      out += run;
      i += run.length;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/** Every raw HTML tag left in the Markdown, besides the ones the renderer itself writes. */
function foreignTags(markdown: string): string[] {
  const withoutOurs = outsideCodeSpans(
    markdown.replace(/^<!-- scalegate:(model|run)[= ][^\n]*-->$/gm, '').replace(/<\/?sub>/g, ''),
  );
  return [...withoutOurs.matchAll(/(?<!\\)<[A-Za-z!/][^>]*>?/g)].map((m) => m[0]);
}

/** Unescaped pipes in a table row (cells + 1). */
const cellBoundaries = (line: string): number => [...line.replace(/\\\|/g, '').matchAll(/\|/g)].length;

function hostilePlan(): PlanArtifact {
  const plan = structuredClone(anchorPlan);
  plan.model_name = HOSTILE;
  plan.inputs.qmax.file = `artifacts/${HOSTILE}.json`;
  plan.inputs.qmax.run_id = HOSTILE;
  plan.inputs.qmax.fingerprint.container_env = { [`K|${HOSTILE}`]: HOSTILE };
  plan.inputs.qmax.fingerprint.region = HOSTILE;
  plan.inputs.mismatch_warnings = [HOSTILE];
  for (const f of plan.findings) {
    f.detail = `${f.detail} ${HOSTILE}`;
    f.fix = `run \`scalegate qmax | tee ${HOSTILE}\` ${HOSTILE}`;
    if (f.verdict === 'ok') f.verdict = 'warn';
  }
  return plan;
}

function hostileTtotal(): TtotalArtifact {
  const t = structuredClone(anchorTtotal);
  t.durations = t.durations.map((d) => ({ ...d, from: HOSTILE, to: `${d.to}|x` }));
  t.missing_stages = [HOSTILE];
  t.trigger = 'policy';
  return t;
}

describe('Markdown report', () => {
  it('leads with the verdict and shows findings, deployable values, inputs with fingerprints, the chart and T_total stages (what a reviewer decides on)', () => {
    const md = renderReport(planInput());
    const lines = md.split('\n');
    expect(lines[0]).toBe('## ⚠️ scalegate plan · kokoro-82m: **warn (3)**');
    expect(md).toContain('| ✅ ok | `surge_survival` |');
    expect(md).toContain('### Policy');
    expect(md).toContain('| closed-loop rule (seed) | 37.5 (closed-loop concurrency');
    expect(md).toContain('| ➖ suppressed | `curve_repeatability` |');
    expect(md).toContain('| `scaling_target_value` | 6.0 |');
    expect(md).toContain(
      '| `scale_in_threshold` | 7.0 (ConcurrentRequestsPerModel, Maximum per 60 s, 15 minutes in a row) |',
    );
    expect(md).toContain('`g5xlarge-8b1b96bc`');
    expect(md).toContain('`8b1b96bc4dc0…`');
    expect(md).toContain('```mermaid\nxychart-beta');
    expect(md).toContain('| `desired_set` → `instance_logging` | 180.8 | 69.5 % | bound |');
  });

  it('charts p95 TTFAB per rung with the SLO line and Q_max marked (Mermaid xychart-beta)', () => {
    const md = renderReport(planInput());
    const chart = /```mermaid\n([\s\S]*?)\n```/.exec(md)?.[1] ?? '';
    const body = chart.split('\n').map((l) => l.trim());
    expect(body[0]).toBe('xychart-beta');
    expect(body).toContain(
      'x-axis "concurrency (requests in flight)" ["1", "5", "10", "20", "30", "40", "50 = Q_max", "60"]',
    );
    expect(body).toContain('y-axis "p95 TTFAB (ms)" 0 --> 5000');
    expect(body).toContain('line [65.4, 286.2, 568.5, 1129.3, 1689.8, 2245, 2805.7, 3374.8]');
    expect(body).toContain('line [3000, 3000, 3000, 3000, 3000, 3000, 3000, 3000]');
    expect(body).toContain('bar [0, 0, 0, 0, 0, 0, 2805.7, 0]');
  });

  it('says what changed against the base branch’s plan (Q_max 50 -> 44, target 6.0 -> 33.0)', () => {
    const head = structuredClone(anchorPlan);
    head.measured.q_max = 44;
    head.deployable.scaling_target_value = 33;
    head.deployable.scale_in_threshold = 22;
    const changes = planChanges(anchorPlan, head);
    expect(changes.map((c) => `${c.label} ${c.base} -> ${c.head}`)).toEqual([
      'Q_max 50 -> 44',
      'target 6.0 -> 33.0',
      'scale-in threshold 7.0 -> 22.0',
    ]);
    const md = renderReport(
      planInput({ plan: { artifact: head, file: null }, basePlan: { artifact: anchorPlan, ref: 'main' } }),
    );
    expect(md).toContain('### What changed against `main`');
    expect(md).toContain('Q\\_max 50 → 44, target 6.0 → 33.0, scale-in threshold 7.0 → 22.0');
    expect(md).toContain('| target | 6.0 | **33.0** |');
    const same = renderReport(planInput({ basePlan: { artifact: anchorPlan, ref: 'main' } }));
    expect(same).toContain('No change: the deployable values equal the plan on `main`.');
  });

  it('renders a hostile model name, notes, file names and fingerprints inert (no HTML, links, mentions, headings or forged cells)', () => {
    const md = renderComment(
      planInput({
        modelName: HOSTILE,
        plan: { artifact: hostilePlan(), file: HOSTILE },
        ttotal: { artifact: hostileTtotal(), file: HOSTILE },
        basePlan: { artifact: anchorPlan, ref: HOSTILE },
      }),
      { runId: '1', attempt: 1, at: run.at },
    );
    expect(foreignTags(md)).toEqual([]);
    // No live link or image syntax outside code spans: every [ and ! is escaped.
    const prose = outsideCodeSpans(md);
    expect(prose).not.toMatch(/(?<!\\)!\[|(?<!\\)\[(?!run )/);
    expect(prose).not.toMatch(/@[A-Za-z]/); // mentions are broken by a zero-width space
    expect(prose).not.toMatch(/(?<!\\)#\d/);
    expect(prose).not.toMatch(/https?:\/\//);
    expect(prose).not.toMatch(/(?<!\\)\$/);
    // Headings are only ours; nothing starts a bullet.
    for (const line of md.split('\n')) {
      if (line.startsWith('#')) expect(line).toMatch(/^#{2,3} /);
      expect(line).not.toMatch(/^\s*[-+*] /);
    }
    // Every table row has exactly as many cells as its header.
    const tables = md.split('\n\n').filter((b) => b.startsWith('|'));
    expect(tables.length).toBeGreaterThan(3);
    for (const block of tables) {
      const rows = block.split('\n').filter((l) => l.startsWith('|'));
      if (rows.length < 2) continue;
      const width = cellBoundaries(rows[0] as string);
      for (const row of rows) expect(cellBoundaries(row), row).toBe(width);
    }
    // The hidden markers cannot be forged or closed early by the name.
    const [first, second] = md.split('\n');
    expect(first).toMatch(/^<!-- scalegate:model=[^\s>]+ -->$/);
    expect(second).toMatch(/^<!-- scalegate:run id=1 attempt=1 at=[^\s>]+ -->$/);
    expect(prose.match(/(?<!\\)-->/g)).toHaveLength(2);
    expect(prose.match(/(?<!\\)<!--/g)).toHaveLength(2);
    expect(hasModelMarker(md, HOSTILE)).toBe(true);
    expect(hasModelMarker(md, 'kokoro-82m')).toBe(false);
  });

  it('renders hostile validate and drift rows inert too', () => {
    const validate: ValidateArtifact = {
      schema_version: 1,
      kind: 'validate',
      model_name: HOSTILE,
      endpoint: HOSTILE,
      region: HOSTILE,
      run_id: 'r1',
      checked_at: run.at,
      verdict: 'mismatch',
      plan: { file: HOSTILE, run_id: HOSTILE },
      rows: [{ parameter: HOSTILE, expected: HOSTILE, deployed: 3, verdict: 'mismatch' }],
    };
    const md = renderReport({
      modelName: 'kokoro-82m',
      command: 'validate',
      exitCode: 1,
      version: '0.1.0',
      validate: { artifact: validate, file: null },
    });
    expect(md.split('\n')[0]).toBe('## 🛑 scalegate validate · kokoro-82m: **mismatch**');
    expect(foreignTags(md)).toEqual([]);
  });

  it('shows a refused input (exit 2) in a code block that the message cannot break out of', () => {
    const md = renderReport({
      modelName: 'kokoro-82m',
      command: 'qmax',
      exitCode: 2,
      version: '0.1.0',
      refused: 'command qmax: not available\n```\n<script>x</script>\n````',
    });
    expect(md.split('\n')[0]).toBe('## 🛑 scalegate qmax · kokoro-82m: refused (exit 2)');
    const fence = /\n(`{3,})text\n/.exec(md)?.[1] ?? '';
    expect(fence.length).toBeGreaterThan(4);
    expect(md).toContain(`${fence}text\ncommand qmax: not available`);
  });

  it('falls back to a compact comment that keeps the verdict and markers (GitHub refuses bodies over 65536 characters)', () => {
    const plan = structuredClone(anchorPlan);
    for (const f of plan.findings) f.detail = 'x'.repeat(8000);
    const input = planInput({ plan: { artifact: plan, file: null } });
    expect(renderComment(input, { runId: '7', attempt: 1, at: run.at }).length).toBeGreaterThan(65_536);
    const compact = renderCompactComment(input, { runId: '7', attempt: 1, at: run.at });
    expect(compact.length).toBeLessThan(2000);
    expect(hasModelMarker(compact, 'kokoro-82m')).toBe(true);
    expect(parseRunMarker(compact)?.runId).toBe('7');
    expect(compact).toContain('## ⚠️ scalegate plan · kokoro-82m: **warn (3)**');
    expect(compact).toContain('it is in the job summary');
  });

  it('round-trips the run stamp it hides in the comment (ordering depends on it)', () => {
    const body = renderComment(planInput(), {
      runId: '123456789012',
      attempt: 3,
      at: '2026-11-29T17:00:00.000Z',
    });
    expect(parseRunMarker(body)).toEqual({
      runId: '123456789012',
      attempt: 3,
      at: '2026-11-29T17:00:00.000Z',
    });
    expect(hasModelMarker(body, 'kokoro-82m')).toBe(true);
  });

  it('escapes text and keeps backticked commands as code', () => {
    expect(escapeMarkdown('a|b <i>c</i> *d* @e')).toBe('a\\|b \\<i\\>c\\</i\\> \\*d\\* @\u200be');
    expect(escapeMarkdown('1. item', { lineStart: true })).toBe('1\\. item');
    expect(escapeMarkdown('- item', { lineStart: true })).toBe('\\- item');
    expect(inlineMarkdown('run `scalegate qmax --runs 2` now', { inTable: true })).toBe(
      'run `scalegate qmax --runs 2` now',
    );
    expect(inlineMarkdown('a `x|y` b', { inTable: true })).toBe('a `x\\|y` b');
    expect(inlineMarkdown('unbalanced ` tick')).toBe('unbalanced \\` tick');
    expect(markerValue('a --> b')).toBe('a%20--%3E%20b');
  });

  it('reports a qmax step on its own: Q_max, the measurement and the chart', () => {
    const q: QmaxArtifact = anchorQmax;
    const md = renderReport({
      modelName: 'kokoro-82m',
      command: 'qmax',
      exitCode: 0,
      version: '0.1.0',
      qmax: { artifact: q, file: 'artifacts/q.json' },
    });
    expect(md.split('\n')[0]).toBe(
      '## ✅ scalegate qmax · kokoro-82m: **Q_max = 50** (bracketed by a breach at 60)',
    );
    expect(md).toContain('xychart-beta');
    expect(md).toContain('`b8fa8ef48043`');
  });
});
