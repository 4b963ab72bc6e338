/**
 * Invisible and bidi characters (Unicode Cf: zero-width spaces and joiners, bidi embeddings,
 * overrides and isolates, the byte-order mark, tag characters; and every control character) make
 * a name or a note read differently in a report, a PR comment, a file name or an AWS name from
 * what it is. Every string of the config and of the artifacts refuses them (exit 2, naming the
 * field), and a refusal spells them out instead of printing them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  isUsageError,
  parseArtifact,
  parseConfig,
  printable,
  readArtifact,
  UNSAFE_CHARACTERS,
} from '../../src/model/index.js';
import { anchorQmaxFile, configFile } from '../helpers/anchor.js';
import { buildDrill, windowsWith } from '../helpers/drill-data.js';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a refusal, nothing was thrown');
}

const kokoro = () => {
  const config = parseConfig(readFileSync(configFile, 'utf8'), configFile);
  return config.models['kokoro-82m'] as NonNullable<(typeof config.models)[string]>;
};

const INVISIBLE: Array<[string, string]> = [
  ['zero-width space', '\u200b'],
  ['zero-width joiner', '\u200d'],
  ['right-to-left override', '\u202e'],
  ['first-strong isolate', '\u2068'],
  ['word joiner', '\u2060'],
  ['byte-order mark', '\ufeff'],
  ['soft hyphen', '\u00ad'],
  ['tag LATIN CAPITAL A', '\u{e0041}'],
  ['cancel tag', '\u{e007f}'],
  ['Hangul filler', '\u3164'],
  ['bell', '\u0007'],
  ['newline', '\n'],
];

describe('the unsafe set', () => {
  it('holds every invisible, bidi and control character, and no printable text', () => {
    for (const [name, c] of INVISIBLE) expect(UNSAFE_CHARACTERS.test(`a${c}b`), name).toBe(true);
    for (const text of ['kokoro-82m', 'Grüße, 東京', 'café ☕ 👍🏽', 'a b', 'x–y']) {
      expect(UNSAFE_CHARACTERS.test(text), text).toBe(false);
    }
  });

  it('printable() spells them out and shortens', () => {
    expect(printable('kokoro\u202e28-\u200b')).toBe('kokoro<U+202E>28-<U+200B>');
    expect(printable('\u{e0041}')).toBe('<U+E0041>');
    expect(printable('x'.repeat(300), 10)).toBe(`${'x'.repeat(10)}…`);
  });
});

describe('the config', () => {
  it('refuses a zero-width space in a container_env value, naming the field and the character', () => {
    const text = JSON.stringify({
      models: { m: { ...kokoro(), container_env: { VOICE: 'af\u200bheart' } } },
    });
    const e = thrown(() => parseConfig(text, 'my.config.json'));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toMatch(/container_env\.VOICE: contains a control or bidi character \(U\+200B\)/);
  });

  it('refuses a bidi override in a model name, and the message shows it spelled out, not applied', () => {
    const text = JSON.stringify({ models: { 'kokoro\u202e28-': kokoro() } });
    const e = thrown(() => parseConfig(text, 'c.json'));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toContain('models.kokoro<U+202E>28-');
    expect(e.message).not.toContain('\u202e');
  });

  it('refuses a tag character in a container_env key (hidden text), and an unknown key carrying one', () => {
    const hidden = JSON.stringify({
      models: { m: { ...kokoro(), container_env: { 'VOICE\u{e0041}': 'x' } } },
    });
    const e = thrown(() => parseConfig(hidden, 'c.json'));
    expect(e.message).toContain('U+E0041');
    expect(e.message).not.toContain('\u{e0041}');
    const unknown = JSON.stringify({ models: { m: { ...kokoro(), 'x\u2066y': 1 } } });
    const u = thrown(() => parseConfig(unknown, 'c.json'));
    expect(isUsageError(u)).toBe(true);
    expect(u.message).not.toContain('\u2066');
  });
});

describe('the artifacts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-invisible-'));

  it('refuses a tag character in a qmax run_id and a zero-width joiner in its model name, naming the field', () => {
    const q = JSON.parse(readFileSync(anchorQmaxFile, 'utf8'));
    const file = join(dir, 'qmax.json');
    writeFileSync(file, JSON.stringify({ ...q, run_id: `b8fa8ef48043\u{e0041}` }));
    expect(thrown(() => readArtifact('qmax', file)).message).toMatch(/run_id: .*\(U\+E0041\)/);
    writeFileSync(file, JSON.stringify({ ...q, model_name: 'kokoro\u200d-82m' }));
    expect(thrown(() => readArtifact('qmax', file)).message).toMatch(/model_name: .*\(U\+200D\)/);
  });

  it("refuses a byte-order mark in a drill's schedule description (text a report prints)", () => {
    const drill = buildDrill({ windows: windowsWith(), observer: null });
    const json = JSON.parse(JSON.stringify(drill));
    json.histograms.schedule.description = 'poisson\ufeff 10/s';
    const e = thrown(() => parseArtifact('drill', json, 'drill.json'));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toMatch(
      /histograms\.schedule\.description: contains a control or bidi character \(U\+FEFF\)/,
    );
  });

  it('does not echo a kind field that carries a bidi override', () => {
    const e = thrown(() => parseArtifact('qmax', { schema_version: 1, kind: 'q\u202emax' }, 'q.json'));
    expect(e.message).toContain('"q<U+202E>max"');
    expect(e.message).not.toContain('\u202e');
  });
});
