/**
 * The README and docs/ show what the commands print: each such block is marked with the command
 * that produces it, and this test runs that command and fails when the block differs.
 *
 *   <!-- output: scalegate gate --model kokoro-82m -->           the whole of what it prints
 *   <!-- output-excerpt: scalegate --help -->                      lines of what it prints: each
 *                                                                  run of lines between `...` lines
 *                                                                  appears as is, in this order
 *
 * Each command runs through the CLI's `main` in-process, in a scratch directory holding a copy of
 * scalegate.config.json and the committed artifacts (so a command that writes an artifact writes
 * it there, never into the repository), with no AWS environment and stdout not a terminal (help
 * text wraps at 80 columns, no colour). Only commands with deterministic output are marked: the
 * committed anchor artifacts, the committed config, no clock and no host in what they print. A
 * block that shows a recorded run instead (`npm start`) is marked `<!-- sample: ... -->` and is
 * not compared. Regenerate the whole-output blocks with
 * UPDATE_README_OUTPUT=1 npx vitest run test/readme.test.ts (excerpts are chosen, so edited by hand).
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/anchor.js';
import { runCli } from './helpers/cli.js';

interface Block {
  file: string;
  kind: 'output' | 'output-excerpt';
  command: string;
  /** The block's text, without its fences. */
  body: string;
  /** Offsets of the body in the file, for rewriting. */
  start: number;
  end: number;
}

const MARKED = /<!-- (output|output-excerpt): (.+?) -->\n```[a-z]*\n([\s\S]*?)```/g;

const documents = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

function blocksOf(file: string, text: string): Block[] {
  return [...text.matchAll(MARKED)].map((m) => {
    const body = m[3] as string;
    const end = (m.index as number) + m[0].length - 3;
    return {
      file,
      kind: m[1] as Block['kind'],
      command: m[2] as string,
      body,
      start: end - body.length,
      end,
    };
  });
}

/** Splits a command line as a POSIX shell would for plain words and '…' / "…" quoting. */
function words(command: string): string[] {
  const out: string[] = [];
  for (const m of command.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    out.push(m[1] ?? (m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] as string)));
  }
  return out;
}

const scratch = mkdtempSync(join(tmpdir(), 'scalegate-readme-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A fresh copy of the config and the committed artifacts (top level of artifacts/ only). */
function workspace(): string {
  const dir = mkdtempSync(join(scratch, 'run-'));
  copyFileSync(join(repoRoot, 'scalegate.config.json'), join(dir, 'scalegate.config.json'));
  mkdirSync(join(dir, 'artifacts'));
  for (const entry of readdirSync(join(repoRoot, 'artifacts'), { withFileTypes: true })) {
    if (entry.isFile())
      copyFileSync(join(repoRoot, 'artifacts', entry.name), join(dir, 'artifacts', entry.name));
  }
  return dir;
}

const AMBIENT = [
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_PROFILE',
  'AWS_ENDPOINT_URL',
  'FORCE_COLOR',
  'CLICOLOR_FORCE',
];

async function printed(command: string): Promise<string> {
  const [program, ...args] = words(command);
  if (program !== 'scalegate')
    throw new Error(`a marked block must name a scalegate command, not ${program}`);
  const saved = { cwd: process.cwd(), isTTY: process.stdout.isTTY, env: { ...process.env } };
  process.chdir(workspace());
  process.stdout.isTTY = false;
  for (const key of AMBIENT) delete process.env[key];
  process.env.NO_COLOR = '1';
  try {
    return (await runCli(args)).stdout;
  } finally {
    process.chdir(saved.cwd);
    process.stdout.isTTY = saved.isTTY;
    process.env = saved.env;
  }
}

/** The printed text as a block shows it: no trailing blank lines, one final newline. */
const asBlock = (text: string): string => `${text.replace(/\s+$/, '')}\n`;

/** Whether every `...`-separated run of the excerpt appears as whole lines, in order. */
function isExcerpt(excerpt: string, output: string): boolean {
  const lines = output.split('\n');
  let from = 0;
  const runs = excerpt
    .replace(/\n$/, '')
    .split(/^\.\.\.$/m)
    .map((run) => run.replace(/^\n|\n$/g, '').split('\n'))
    .filter((run) => run.length > 0 && !(run.length === 1 && run[0] === ''));
  for (const run of runs) {
    let found = -1;
    for (let i = from; i + run.length <= lines.length; i++) {
      if (run.every((line, j) => lines[i + j] === line)) {
        found = i;
        break;
      }
    }
    if (found < 0) return false;
    from = found + run.length;
  }
  return runs.length > 0;
}

const all = documents.flatMap((file) => blocksOf(file, readFileSync(join(repoRoot, file), 'utf8')));

describe('output blocks in the README and docs/', () => {
  it('include scalegate plan and scalegate gate on the committed artifacts and a --help excerpt in the README', () => {
    const readme = all.filter((b) => b.file === 'README.md').map((b) => b.command);
    expect(readme.some((c) => /^scalegate plan .*--qmax artifacts\/qmax-kokoro-82m/.test(c))).toBe(true);
    expect(readme.some((c) => /^scalegate gate --model kokoro-82m/.test(c))).toBe(true);
    expect(readme.some((c) => / --help$/.test(c))).toBe(true);
  });

  for (const block of all) {
    it(`${block.file}: "${block.command}" prints what the block shows (${block.kind})`, async () => {
      const output = await printed(block.command);
      if (process.env.UPDATE_README_OUTPUT && block.kind === 'output') {
        const text = readFileSync(join(repoRoot, block.file), 'utf8');
        const fresh = blocksOf(block.file, text).find(
          (b) => b.command === block.command && b.kind === 'output',
        );
        if (fresh) {
          writeFileSync(
            join(repoRoot, block.file),
            text.slice(0, fresh.start) + asBlock(output) + text.slice(fresh.end),
          );
        }
        return;
      }
      if (block.kind === 'output') expect(block.body).toBe(asBlock(output));
      else expect(isExcerpt(block.body, output), `not an excerpt of:\n${output}`).toBe(true);
    });
  }
});

describe('the README', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };

  it('is a guide of at most 300 lines (reference material lives in docs/)', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('names the version package.json declares wherever it pins scalegate (npx and uses:)', () => {
    const pinned = [...readme.matchAll(/scalegate(?:\/[\w/-]+)?@v?(\d+\.\d+\.\d+[\w.-]*)/g)].map((m) => m[1]);
    expect(pinned.length).toBeGreaterThan(0);
    expect(new Set(pinned)).toEqual(new Set([version]));
  });

  it('gives `npm ci` and `npm test` as the commands to install and test (what .ci/run runs)', () => {
    expect(readme).toContain('npm ci && npm test');
    expect(readme).toContain('npm ci && npm start');
    const ci = readFileSync(join(repoRoot, '.ci', 'run'), 'utf8');
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).toMatch(/^npm test$/m);
  });
});
