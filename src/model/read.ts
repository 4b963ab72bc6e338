/**
 * The one reader of every file scalegate takes as input: artifacts, shards, the config, thaw
 * journals, prompt and schedule files. Anything in a pull request is a file its author wrote, so
 * a read is bounded before it starts:
 *
 * - only a regular file is read: a directory, a FIFO, a device (`/dev/zero`) or a socket is
 *   refused from `lstat`, before it is opened;
 * - a path in the working tree (the working directory: the checkout, where a pull request's files
 *   are) that goes through a symbolic link (the file itself or a directory on the way) is followed
 *   only when it resolves inside the tree, to a regular file; one that leaves it (`/etc/passwd`,
 *   `/dev/zero`, `/proc/...`) is refused. A path outside the tree is one the user named on the
 *   command line: it is followed, and its target must still be a regular file within the limit;
 * - a file above its kind's size limit is refused, and the read itself stops at limit + 1 bytes
 *   (open, fstat, bounded reads), so a file that grows while it is read cannot exhaust memory;
 * - a file name with control, bidi or invisible characters is refused.
 *
 * Every refusal is a UsageError (exit 2) naming the file, the limit and the fix; no message ever
 * quotes the file's content (`parseJsonText` reports where JSON breaks, never what it says).
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  type Stats,
} from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { type MessagePart, UsageError } from './errors.js';
import { printable, UNSAFE_CHARACTERS } from './safe.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Largest file of each kind that is read. The committed measurement artifacts and plans are tens of
 * kB (the largest in artifacts/ is a 12 kB plan); an artifact that carries HDR histograms per window
 * (goodput, drill, drill shards) is a few MB for an hour-long drill in 10 s windows. The config
 * and journals are a few kB.
 */
export const READ_LIMITS = {
  /** qmax, ttotal, plan, validate and drift artifacts. */
  artifact: 8 * MiB,
  /** goodput, drill and drill-shard artifacts (HDR histograms per window). */
  histogramArtifact: 32 * MiB,
  /** scalegate.config.json. */
  config: 1 * MiB,
  /** A thaw journal (well under 1 kB). */
  journal: 64 * KiB,
  /** A prompts file, a schedule or a replay trace. */
  loadInput: 64 * MiB,
  /**
   * A traffic trace (src/model/trace.ts): a day of request timestamps at ~100 requests/s is about
   * 100 MB; a day of 10 s rate rows about 100 kB.
   */
  trace: 256 * MiB,
} as const;

export const formatBytes = (bytes: number): string =>
  bytes >= MiB && bytes % MiB === 0
    ? `${bytes / MiB} MB`
    : bytes >= KiB && bytes % KiB === 0
      ? `${bytes / KiB} kB`
      : `${bytes} bytes`;

export interface BoundedReadOptions {
  /** Largest size accepted, bytes (one of READ_LIMITS). */
  maxBytes: number;
  /** What the file is, in messages: `the qmax artifact`, `the config`. */
  label: string;
  /** How to put it right, appended to every refusal (a sentence; it may name an option). */
  fix?: string | readonly MessagePart[];
  /** The flag or input that named the file, put before its name in messages (`--config`). */
  source?: MessagePart;
  /** The tree a symbolic link may resolve into. @default the working directory */
  root?: string;
}

/** A refused read; `missing` when there is no such file (so a caller may treat that as "none"). */
export class FileReadError extends UsageError {
  readonly missing: boolean;
  constructor(parts: readonly MessagePart[], missing: boolean) {
    super(parts);
    this.missing = missing;
  }
}

const kindOf = (stats: Stats): string =>
  stats.isDirectory()
    ? 'a directory'
    : stats.isFIFO()
      ? 'a FIFO (named pipe)'
      : stats.isCharacterDevice()
        ? 'a character device'
        : stats.isBlockDevice()
          ? 'a block device'
          : stats.isSocket()
            ? 'a socket'
            : 'not a regular file';

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

function refusal(file: string, why: string, options: BoundedReadOptions, missing = false): FileReadError {
  const parts: MessagePart[] = [];
  if (options.source !== undefined) parts.push(options.source, ' ');
  parts.push(`${printable(file)}: ${why}.`);
  if (options.fix !== undefined) {
    parts.push(' ');
    if (typeof options.fix === 'string') parts.push(options.fix);
    else parts.push(...options.fix);
  }
  return new FileReadError(parts, missing);
}

/** The path to open: `file` itself, or where its symbolic links lead when that stays inside the tree. */
function checkedPath(file: string, options: BoundedReadOptions): string {
  if (UNSAFE_CHARACTERS.test(file)) {
    throw refusal(
      file,
      `the file name contains a control, bidi or invisible character; rename it to plain text`,
      options,
    );
  }
  let link: Stats;
  try {
    link = lstatSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw refusal(file, `cannot read ${options.label} (no such file)`, options, true);
    }
    throw refusal(file, `cannot read ${options.label} (${code ?? 'unreadable'})`, options);
  }
  const absolute = resolve(file);
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    throw refusal(
      file,
      `cannot read ${options.label} (no such file: a symbolic link to nothing)`,
      options,
      true,
    );
  }
  if (real !== absolute) {
    // A path in the tree (what a pull request can commit) must stay in it through its links. A
    // path outside the tree is one the user named: only its kind and size are checked (its
    // links may be the system's own, such as /var -> /private/var).
    const tree = resolve(options.root ?? process.cwd());
    const root = realpathSync(tree);
    if ((inside(tree, absolute) || inside(root, absolute)) && !inside(root, real)) {
      throw refusal(
        file,
        `resolves through a symbolic link to ${printable(real)}, outside the working tree ${printable(root)}: refused (a link is followed only to a file inside the tree); commit the file itself`,
        options,
      );
    }
  }
  // The final component's kind, after the links (lstat said what the link itself is).
  const target = link.isSymbolicLink() ? lstatSync(real) : link;
  if (!target.isFile()) {
    throw refusal(file, `${kindOf(target)}, not a regular file: ${options.label} must be a file`, options);
  }
  if (target.size > options.maxBytes) {
    throw refusal(file, tooLarge(target.size, options), options);
  }
  return real;
}

const tooLarge = (size: number | null, options: BoundedReadOptions): string =>
  size === null
    ? `more than the ${formatBytes(options.maxBytes)} limit for ${options.label} (it grew while read)`
    : `${size} bytes, above the ${formatBytes(options.maxBytes)} limit for ${options.label}`;

/**
 * The file's text, read within `maxBytes`. Throws FileReadError (a UsageError, exit 2) naming the
 * file for a missing file, anything but a regular file, a link out of the tree, or a file too large.
 */
export function readBoundedFile(file: string, options: BoundedReadOptions): string {
  return readBoundedBytes(file, options).toString('utf8');
}

/** As readBoundedFile, the bytes (for a digest of the file as it is). */
export function readBoundedBytes(file: string, options: BoundedReadOptions): Buffer {
  const path = checkedPath(file, options);
  let fd: number;
  try {
    // O_NOFOLLOW: the path was resolved above, a link put in its place since is not followed;
    // O_NONBLOCK: a FIFO swapped in since the lstat cannot block the open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw refusal(file, `cannot read ${options.label} (${code ?? 'unreadable'})`, options, code === 'ENOENT');
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      throw refusal(file, `${kindOf(stats)}, not a regular file: ${options.label} must be a file`, options);
    }
    if (stats.size > options.maxBytes) throw refusal(file, tooLarge(stats.size, options), options);
    // At most limit + 1 bytes, whatever the size said: a file that grows is caught, never read whole.
    const buffer = Buffer.allocUnsafe(Math.min(options.maxBytes + 1, Math.max(stats.size + 1, 64 * KiB)));
    let length = 0;
    let grown = buffer;
    for (;;) {
      if (length === grown.length) {
        if (grown.length > options.maxBytes) break;
        const next = Buffer.allocUnsafe(Math.min(options.maxBytes + 1, grown.length * 2));
        grown.copy(next, 0, 0, length);
        grown = next;
      }
      const n = readSync(fd, grown, length, grown.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > options.maxBytes) throw refusal(file, tooLarge(null, options), options);
    return grown.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** As readBoundedFile, but null when there is no such file. */
export function readBoundedFileIfExists(file: string, options: BoundedReadOptions): string | null {
  try {
    return readBoundedFile(file, options);
  } catch (e) {
    if (e instanceof FileReadError && e.missing) return null;
    throw e;
  }
}

/**
 * JSON.parse whose failure never quotes the text: V8's messages carry a snippet of the input
 * (`"root:x:0:0"... is not valid JSON`), which would print a file's content. The refusal says where
 * it breaks (line and column) and nothing of what is there.
 */
export function parseJsonText(
  text: string,
  where: readonly MessagePart[] | string,
  fix: readonly MessagePart[] | string,
): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    const position = /position (\d+)/.exec(message);
    let at = '';
    if (position) {
      const offset = Number(position[1]);
      const before = text.slice(0, offset);
      const line = before.split('\n').length;
      const column = offset - before.lastIndexOf('\n');
      at = ` at line ${line}, column ${column}`;
    } else if (/end of JSON input/.test(message)) {
      at = ': it ends before the JSON does';
    }
    const prefix = typeof where === 'string' ? [where] : where;
    throw new UsageError([...prefix, `: not valid JSON${at}. `, ...(typeof fix === 'string' ? [fix] : fix)]);
  }
}
