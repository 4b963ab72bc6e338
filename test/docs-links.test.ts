/**
 * Every relative link in the README, docs/, examples/ and infra/container/README.md points at a
 * file of the repository (a moved or renamed document would otherwise leave a dead link in the
 * guide a new user follows), and no document cites material outside the repository.
 */
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

  it('no document cites material outside the repository (DESIGN.md, ../shared)', () => {
    const citing = documents.filter((file) => /DESIGN\.md|\.\.\/shared\b/.test(readFileSync(file, 'utf8')));
    expect(citing.map((f) => relative(repoRoot, f))).toEqual([]);
  });
});
