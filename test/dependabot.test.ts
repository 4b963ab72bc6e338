/**
 * .github/dependabot.yml (no published schema ships offline, so its shape is checked here): npm at
 * the root and in infra/container (each a directory with its own lockfile) and GitHub Actions,
 * weekly, grouped, with only the keys Dependabot's version 2 format accepts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from './helpers/anchor.js';

interface Update {
  'package-ecosystem': string;
  directory: string;
  schedule: { interval: string };
  groups?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

const config = parse(readFileSync(join(repoRoot, '.github', 'dependabot.yml'), 'utf8')) as {
  version: number;
  updates: Update[];
};
const UPDATE_KEYS = ['package-ecosystem', 'directory', 'schedule', 'groups', 'open-pull-requests-limit'];
const GROUP_KEYS = ['patterns', 'exclude-patterns', 'dependency-type', 'update-types', 'applies-to'];

describe('.github/dependabot.yml', () => {
  it('is version 2 and updates npm at / and /infra/container and github-actions, each weekly', () => {
    expect(config.version).toBe(2);
    expect(config.updates.map((u) => `${u['package-ecosystem']} ${u.directory}`).sort()).toEqual([
      'github-actions /',
      'npm /',
      'npm /infra/container',
    ]);
    for (const u of config.updates) expect(u.schedule.interval).toBe('weekly');
  });

  it('points npm at directories that have a package.json and a lockfile (a typo would update nothing)', () => {
    for (const u of config.updates.filter((x) => x['package-ecosystem'] === 'npm')) {
      const dir = join(repoRoot, u.directory);
      expect(existsSync(join(dir, 'package.json')), u.directory).toBe(true);
      expect(existsSync(join(dir, 'package-lock.json')), u.directory).toBe(true);
    }
  });

  it('groups every ecosystem and uses only keys the format accepts (Dependabot rejects unknown keys)', () => {
    for (const u of config.updates) {
      expect(Object.keys(u).filter((k) => !UPDATE_KEYS.includes(k))).toEqual([]);
      expect(Object.keys(u.groups ?? {}).length).toBeGreaterThan(0);
      for (const group of Object.values(u.groups ?? {})) {
        expect(Object.keys(group).length).toBeGreaterThan(0);
        expect(Object.keys(group).filter((k) => !GROUP_KEYS.includes(k))).toEqual([]);
      }
    }
  });
});
