/**
 * Every relative link in the README, docs/, examples/ and infra/container/README.md points at a
 * file of the repository (a moved or renamed document would otherwise leave a dead link in the
 * guide a new user follows), and no tracked file cites material outside the repository (the
 * original design document or the shared background folder next to a checkout).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/anchor.js';

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const documents = [
  join(repoRoot, 'README.md'),
  join(repoRoot, 'CHANGELOG.md'),
  join(repoRoot, 'infra', 'container', 'README.md'),
  ...markdownFiles(join(repoRoot, 'docs')),
  ...markdownFiles(join(repoRoot, 'examples')),
];

/** `[text](target)` links that are not URLs or in-page anchors, with the file part only. */
function relativeLinks(markdown: string): string[] {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1] as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
    .map((target) => decodeURIComponent(target.split('#')[0] as string));
}

describe('links in the documentation', () => {
  it('finds the documents it checks (an empty list would pass vacuously)', () => {
    expect(documents.length).toBeGreaterThanOrEqual(10);
    expect(relativeLinks(readFileSync(join(repoRoot, 'README.md'), 'utf8')).length).toBeGreaterThan(5);
  });

  for (const file of documents) {
    it(`${relative(repoRoot, file)}: every relative link resolves to a file in the repository`, () => {
      const dead = relativeLinks(readFileSync(file, 'utf8')).filter((target) => {
        const path = resolve(dirname(file), target);
        return !path.startsWith(repoRoot) || !existsSync(path);
      });
      expect(dead).toEqual([]);
    });
  }

  it('no tracked file cites material outside the repository (the design document, the shared folder)', () => {
    // Spelled in pieces so that this file does not cite them itself.
    const outside = new RegExp([['DESIGN', 'md'].join('\\.'), ['\\.\\.', 'shared\\b'].join('/')].join('|'));
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f !== '' && !f.startsWith('dist/') && existsSync(join(repoRoot, f)));
    expect(tracked.length).toBeGreaterThan(100);
    const citing = tracked.filter((f) => outside.test(readFileSync(join(repoRoot, f), 'utf8')));
    expect(citing).toEqual([]);
  });
});
