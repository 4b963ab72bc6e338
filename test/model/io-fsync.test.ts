/**
 * The atomic write is durable, not only atomic: the rename is followed by an fsync of the parent
 * directory (without it a power cut after the rename can lose the new name). node:fs is wrapped
 * to record the calls in order; the real calls still happen.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';

const calls: string[] = [];
const openPaths = new Map<number, string>();

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    openSync: (path: string, flags: string) => {
      const fd = fs.openSync(path, flags);
      openPaths.set(fd, path);
      calls.push(`open ${flags} ${path}`);
      return fd;
    },
    fsyncSync: (fd: number) => {
      calls.push(`fsync ${openPaths.get(fd)}`);
      return fs.fsyncSync(fd);
    },
    renameSync: (from: string, to: string) => {
      calls.push(`rename ${to}`);
      return fs.renameSync(from, to);
    },
  };
});

const { writeFileAtomic } = await import('../../src/model/io.js');

describe('writeFileAtomic', () => {
  it('fsyncs the parent directory after the rename (a power cut cannot lose the new file name)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'scalegate-fsync-')), 'nested', 'plan.json');
    writeFileAtomic(file, '{"v":1}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"v":1}\n');
    const rename = calls.indexOf(`rename ${file}`);
    expect(rename).toBeGreaterThan(0);
    // The temp file is fsynced before the rename, the directory after it.
    expect(calls.slice(0, rename).some((c) => c.startsWith('fsync ') && c.endsWith('.tmp'))).toBe(true);
    expect(calls.slice(rename)).toEqual([
      `rename ${file}`,
      `open r ${dirname(file)}`,
      `fsync ${dirname(file)}`,
    ]);
  });
});
