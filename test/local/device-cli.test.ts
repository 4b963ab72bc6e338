/**
 * Refused device input on `scalegate local up` and `scalegate rehearse`: exit 2, a message naming
 * the flag and the file, and nothing started or written.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const ROOT = join(import.meta.dirname, '..', '..');
const QMAX = join(ROOT, 'artifacts', 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
const TTOTAL = join(ROOT, 'artifacts', 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json');
const dir = mkdtempSync(join(tmpdir(), 'scalegate-device-cli-'));

/** The Kokoro ladder with every rung marked unusable: a valid qmax artifact with nothing to derive from. */
const NO_USABLE = join(dir, 'qmax-no-usable-rung.json');
const legacy = JSON.parse(readFileSync(QMAX, 'utf8')) as { steps: Array<Record<string, unknown>> };
writeFileSync(
  NO_USABLE,
  JSON.stringify({
    ...legacy,
    steps: legacy.steps.map((s) => ({ ...s, usable: false, unusable_reason: 'test: not usable' })),
  }),
);
const BAD_PROFILE = join(dir, 'device-bad-sharing.json');
writeFileSync(
  BAD_PROFILE,
  JSON.stringify({
    source: 'test',
    lanes: 16,
    service_mean_ms: 450,
    service_sigma: 0,
    first_audio_fraction: 0.036,
    streaming: { rtf: 0.1, chunk_audio_ms: 160, sharing: 'batched' },
  }),
);
const NOT_JSON = join(dir, 'notes.txt');
writeFileSync(NOT_JSON, 'a device, surely\n');

const cases: Array<[string, string[], RegExp]> = [
  [
    'a ttotal artifact where a qmax artifact is needed',
    ['--device', TTOTAL],
    /^scalegate: --device .*ttotal-kokoro.*not a valid legacy qmax artifact/,
  ],
  ['a file that is not JSON', ['--device', NOT_JSON], /^scalegate: --device .*notes\.txt: not valid JSON/],
  [
    'a file that does not exist',
    ['--device', join(dir, 'missing.json')],
    /^scalegate: --device .*missing\.json: cannot read the qmax artifact \(no such file\)/,
  ],
  [
    'a ladder with no usable rung',
    ['--device', NO_USABLE],
    /^scalegate: --device .*qmax-no-usable-rung\.json: no usable rung/,
  ],
  [
    '--time-scale 0',
    ['--device', QMAX, '--time-scale', '0'],
    /--time-scale needs a positive number, got "0"/,
  ],
  [
    '--time-scale -1',
    ['--device', QMAX, '--time-scale', '-1'],
    /--time-scale needs a positive number, got "-1"/,
  ],
  [
    '--time-scale abc',
    ['--device', QMAX, '--time-scale', 'abc'],
    /--time-scale needs a positive number, got "abc"/,
  ],
  [
    '--time-scale with --device cpu and no --startup',
    ['--device', 'cpu', '--time-scale', '0.5'],
    /--time-scale 0\.5: with --device cpu and no --startup there is no device time to scale/,
  ],
  [
    'a device profile file with an unknown sharing',
    ['--device', BAD_PROFILE],
    /^scalegate: --device .*device-bad-sharing\.json: not a valid device profile \(streaming\.sharing: /,
  ],
  [
    'a qmax artifact as --startup',
    ['--device', QMAX, '--startup', QMAX],
    /^scalegate: --startup .*qmax-kokoro.*not a valid legacy ttotal artifact/,
  ],
];

describe('scalegate local up: refused device input', () => {
  it.each(cases)('%s: exit 2 naming the flag and the file, nothing started', async (_what, args, message) => {
    const run = await runCli(['local', 'up', ...args]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(run.stdout).toBe(''); // no JSON line: nothing was started
  });
});

describe('scalegate rehearse: refused device input', () => {
  it.each(cases)('%s: exit 2 before anything starts, nothing written', async (_what, args, message) => {
    const out = join(
      dir,
      `rehearse-${args
        .join('-')
        .replace(/[^a-z0-9]+/gi, '_')
        .slice(-40)}`,
    );
    const run = await runCli(['rehearse', '--out', out, ...args]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });
});
