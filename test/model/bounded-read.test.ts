/**
 * Every input file goes through one bounded reader (src/model/read.ts): what a pull request can
 * put where an artifact, the config or a journal is expected (a huge file, a link to /dev/zero or
 * to a system file, a FIFO, a directory) is refused with exit 2 naming the file and the limit,
 * before it is read whole, and no refusal ever prints what the file holds.
 */
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { containerAssetHash } from '../../src/model/asset-hash.js';
import {
  isUsageError,
  READ_LIMITS,
  readArtifact,
  readBoundedFile,
  readConfigFile,
  writeArtifact,
} from '../../src/model/index.js';
import { readThawJournal } from '../../src/model/journal.js';
import { anchorQmaxFile } from '../helpers/anchor.js';

/** The error a call throws (fails the test when it does not throw). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a refusal, nothing was thrown');
}

// The working tree of these tests: a fresh directory, made the working directory (the tree a
// symbolic link may resolve into), so links inside and outside it are both at hand.
const tree = mkdtempSync(join(tmpdir(), 'scalegate-tree-'));
const outside = mkdtempSync(join(tmpdir(), 'scalegate-outside-'));
const before = process.cwd();
beforeAll(() => process.chdir(tree));
afterAll(() => process.chdir(before));

const PASSWD_LIKE = 'root:x:0:0:root:/root:/bin/bash\n';

describe('size limits', () => {
  it('refuses an artifact above its limit before reading it (a 105 MB qmax file), naming the file and the 8 MB limit', () => {
    const file = join(tree, 'qmax-huge.json');
    const fd = openSync(file, 'w');
    ftruncateSync(fd, 105 * 1024 * 1024); // sparse: no 105 MB is written or read
    closeSync(fd);
    const e = thrown(() => readArtifact('qmax', file));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toBe(
      `${file}: 110100480 bytes, above the 8 MB limit for the qmax artifact. Produce one with \`scalegate qmax\`.`,
    );
  });

  it('gives histogram artifacts (goodput, drill) their own larger limit, and the config and journals smaller ones', () => {
    expect(READ_LIMITS).toMatchObject({
      artifact: 8 * 2 ** 20,
      histogramArtifact: 32 * 2 ** 20,
      config: 2 ** 20,
      journal: 64 * 1024,
    });
    const config = join(tree, 'big.config.json');
    writeFileSync(config, `{"models": {}, "$schema": "${'x'.repeat(READ_LIMITS.config)}"}`);
    expect(thrown(() => readConfigFile(config)).message).toMatch(
      /big\.config\.json: \d+ bytes, above the 1 MB limit for the config\. Fix the file or name another with --config\./,
    );
    const state = join(tree, 'state');
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, 'thaw-journal-speech-x.json'), ' '.repeat(READ_LIMITS.journal + 1));
    expect(thrown(() => readThawJournal('speech-x', state)).message).toMatch(
      /thaw-journal-speech-x\.json: 65537 bytes, above the 64 kB limit for the thaw journal/,
    );
  });

  it.skipIf(process.platform !== 'linux')(
    'stops reading at the limit when a file holds more than its size says (a /proc file states 0 bytes)',
    () => {
      const e = thrown(() => readBoundedFile('/proc/self/status', { maxBytes: 100, label: 'the file' }));
      expect(isUsageError(e)).toBe(true);
      expect(e.message).toBe(
        '/proc/self/status: more than the 100 bytes limit for the file (it grew while read).',
      );
    },
  );

  it('reads a file of exactly the limit', () => {
    const file = join(tree, 'exact.txt');
    writeFileSync(file, 'a'.repeat(1000));
    expect(readBoundedFile(file, { maxBytes: 1000, label: 'the file' })).toHaveLength(1000);
    writeFileSync(file, 'a'.repeat(1001));
    expect(() => readBoundedFile(file, { maxBytes: 1000, label: 'the file' })).toThrow(
      /1001 bytes, above the 1000 bytes limit for the file/,
    );
  });
});

describe('only regular files, and links only inside the tree', () => {
  it('refuses a link to /dev/zero in the artifacts directory (it would never end), and /dev/zero named directly', () => {
    const link = join(tree, 'qmax-zero.json');
    symlinkSync('/dev/zero', link);
    const e = thrown(() => readArtifact('qmax', link));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toContain(
      `${link}: resolves through a symbolic link to /dev/zero, outside the working tree`,
    );
    const direct = thrown(() => readArtifact('qmax', '/dev/zero'));
    expect(isUsageError(direct)).toBe(true);
    expect(direct.message).toContain('/dev/zero: a character device, not a regular file');
  });

  it('refuses a link to a system file outside the tree, and no message carries a byte of it', () => {
    const secret = join(outside, 'passwd');
    writeFileSync(secret, PASSWD_LIKE);
    const link = join(tree, 'plan-kokoro-82m.json');
    symlinkSync(secret, link);
    const e = thrown(() => readArtifact('plan', link));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toContain('outside the working tree');
    expect(e.message).not.toContain('root:');
    // /etc/passwd itself, through a link.
    const etc = join(tree, 'validate-x.json');
    symlinkSync('/etc/passwd', etc);
    const system = thrown(() => readArtifact('validate', etc));
    expect(system.message).toContain('/etc/passwd, outside the working tree');
    expect(system.message).not.toMatch(/root:|nologin|bash/);
  });

  it('a file that is not JSON (named directly) is refused without quoting it: line and column only', () => {
    const file = join(outside, 'not-json.json');
    writeFileSync(file, PASSWD_LIKE);
    const e = thrown(() => readArtifact('qmax', file));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toMatch(
      /not-json\.json: not valid JSON( at line 1, column \d+)?\. Produce a valid one/,
    );
    expect(e.message).not.toContain('root');
    const config = thrown(() => readConfigFile(file));
    expect(config.message).not.toContain('root');
  });

  it('follows a link inside the tree to a regular file', () => {
    const real = join(tree, 'real-qmax.json');
    writeArtifact('qmax', real, readArtifact('qmax', anchorQmaxFile));
    const link = join(tree, 'linked-qmax.json');
    symlinkSync('real-qmax.json', link);
    expect(readArtifact('qmax', link).run_id).toBe(readArtifact('qmax', anchorQmaxFile).run_id);
    // A directory link inside the tree leading out of it is refused like a file link.
    const dirLink = join(tree, 'out');
    symlinkSync(outside, dirLink);
    writeFileSync(join(outside, 'q.json'), '{}');
    expect(thrown(() => readArtifact('qmax', join(dirLink, 'q.json'))).message).toContain(
      'outside the working tree',
    );
  });

  it('a path outside the tree (named by the user) may go through links, to a regular file only', () => {
    const real = join(outside, 'real-qmax.json');
    writeArtifact('qmax', real, readArtifact('qmax', anchorQmaxFile));
    const link = join(outside, 'linked-qmax.json');
    symlinkSync(real, link);
    expect(readArtifact('qmax', link).kind).toBe('qmax');
    const zero = join(outside, 'zero.json');
    symlinkSync('/dev/zero', zero);
    expect(thrown(() => readArtifact('qmax', zero)).message).toContain(
      `${zero}: a character device, not a regular file: the qmax artifact must be a file`,
    );
  });

  it('refuses a FIFO without opening it (an open would wait for a writer forever)', () => {
    const fifo = join(tree, 'qmax-fifo.json');
    const made = spawnSync('mkfifo', [fifo]);
    expect(made.status).toBe(0);
    const e = thrown(() => readArtifact('qmax', fifo));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toContain(
      `${fifo}: a FIFO (named pipe), not a regular file: the qmax artifact must be a file`,
    );
  });

  it('refuses a directory, and a dangling link reads as no such file', () => {
    const dir = join(tree, 'qmax-dir.json');
    mkdirSync(dir);
    expect(thrown(() => readArtifact('qmax', dir)).message).toContain(
      `${dir}: a directory, not a regular file`,
    );
    const dangling = join(tree, 'qmax-gone.json');
    symlinkSync(join(tree, 'nothing-here.json'), dangling);
    expect(thrown(() => readArtifact('qmax', dangling)).message).toContain(
      'cannot read the qmax artifact (no such file',
    );
    expect(readThawJournal('nobody', join(tree, 'state'))).toBeNull();
  });

  it("refuses a container_dir's .dockerignore that links to /dev/zero (the gate hashes that directory)", () => {
    const container = join(tree, 'container');
    mkdirSync(container);
    writeFileSync(join(container, 'Dockerfile'), 'FROM scratch\n');
    symlinkSync('/dev/zero', join(container, '.dockerignore'));
    const e = thrown(() => containerAssetHash(container));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toContain('.dockerignore: resolves through a symbolic link to /dev/zero');
  });

  it('refuses a file name with a bidi or zero-width character, spelling it out', () => {
    const file = join(tree, 'qmax-\u202eevil.json');
    writeFileSync(file, '{}');
    const e = thrown(() => readArtifact('qmax', file));
    expect(e.message).toContain(
      'qmax-<U+202E>evil.json: the file name contains a control, bidi or invisible character',
    );
    expect(e.message).not.toContain('\u202e');
  });
});
