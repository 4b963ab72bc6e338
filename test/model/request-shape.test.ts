/**
 * The request shape: templates checked when read (flag, config key, action input), bodies built
 * with the text JSON-escaped, the JSONL mode, and the fingerprint telling measurements of another
 * shape apart.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodePrompts, parsePrompts, promptsFor } from '../../src/load/prompts.js';
import {
  checkBodyTemplate,
  configFingerprint,
  DEFAULT_REQUEST_SHAPE,
  type Fingerprint,
  fingerprintDifferences,
  fingerprintSchema,
  parseConfig,
  resolveRequestShape,
} from '../../src/model/index.js';
import { REQUEST_SHAPE_OPTIONS } from '../../src/options/common.js';
import { runCli } from '../helpers/cli.js';

const SPEECH = '{"input":"{{text}}","voice":"af_heart"}';
const where = { configFile: 'scalegate.config.json', modelName: 'kokoro' };
const decode = (b: Uint8Array | undefined) => Buffer.from(b as Uint8Array).toString('utf8');

describe('body templates', () => {
  it('a template without {{text}}, not JSON once substituted, or with the placeholder outside a string is refused with the fix', () => {
    expect(checkBodyTemplate('{"input":"hello"}')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/has no \{\{text\}\} placeholder/),
    });
    expect(checkBodyTemplate('{"input":{{text}}}')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/not valid JSON once a text is inserted.*inside a JSON string/),
    });
    expect(checkBodyTemplate('{"input":"{{text}}"')).toMatchObject({ ok: false });
    expect(checkBodyTemplate(' { "input" : "{{text}}" } ')).toEqual({
      ok: true,
      body: '{"input":"{{text}}"}',
    });
    expect(checkBodyTemplate('jsonl')).toEqual({ ok: true, body: 'jsonl' });
  });

  it('the flag wins over the config, the config over the default; a bad value names the flag or the config key', () => {
    expect(resolveRequestShape({}, undefined, where)).toEqual(DEFAULT_REQUEST_SHAPE);
    expect(resolveRequestShape({}, { body_template: SPEECH, accept: 'audio/mpeg' }, where)).toEqual({
      body: SPEECH,
      content_type: 'application/json',
      accept: 'audio/mpeg',
    });
    expect(
      resolveRequestShape({ bodyTemplate: '{"text":"{{text}}","speed":1}' }, { body_template: SPEECH }, where)
        .body,
    ).toBe('{"text":"{{text}}","speed":1}');
    expect(() => resolveRequestShape({ bodyTemplate: '{"input":"x"}' }, undefined, where)).toThrow(
      /--body-template .*has no \{\{text\}\} placeholder/,
    );
    expect(() => resolveRequestShape({}, { body_template: '{"input":"x"}' }, where)).toThrow(
      /models\.kokoro\.request\.body_template in scalegate\.config\.json: the body template has no/,
    );
    expect(() => resolveRequestShape({ contentType: 'json' }, undefined, where)).toThrow(
      /--content-type json: not a media type/,
    );
  });

  it('the option table checks the template when it is parsed, naming the flag on the command line and the input in the action', () => {
    let error: unknown;
    try {
      REQUEST_SHAPE_OPTIONS.bodyTemplate.parse('{"input":"x"}');
    } catch (e) {
      error = e;
    }
    expect((error as Error).message).toMatch(/^--body-template has no \{\{text\}\} placeholder/);
    expect((error as { messageFor(s: string): string }).messageFor('action')).toMatch(
      /^input body-template: has no/,
    );
    expect(REQUEST_SHAPE_OPTIONS.bodyTemplate.parse(SPEECH)).toBe(SPEECH);
    expect(() => REQUEST_SHAPE_OPTIONS.accept.parse('wav')).toThrow(/--accept needs a media type/);
  });

  it('on the command line, a bad --body-template is exit 2 naming the flag, before anything is read or sent', async () => {
    const run = await runCli(['qmax', '--body-template', '{"input":{{text}}}', '--dry-run']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/--body-template is not valid JSON once a text is inserted/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a config whose request.body_template is bad is refused when read (exit 2 path), naming the key', () => {
    const text = JSON.stringify({
      models: {
        kokoro: {
          endpoint: 'speech-kokoro',
          region: 'us-east-1',
          instance_type: 'ml.g5.xlarge',
          image_uri: `x.dkr.ecr.us-east-1.amazonaws.com/k@sha256:${'a'.repeat(64)}`,
          slo_ms: 1000,
          surge_ratio: 1.2,
          peak_rps: 10,
          request: { body_template: '{"input":"hello"}' },
        },
      },
    });
    expect(() => parseConfig(text, 'cfg.json')).toThrow(
      /models\.kokoro\.request\.body_template.*has no \{\{text\}\} placeholder/s,
    );
  });
});

describe('bodies', () => {
  it('every prompt goes into the template JSON-escaped; the default is byte for byte the old {"text": ...}', () => {
    const set = parsePrompts('He said "hi" \\ – ü\nPlain.\n', 'p.txt');
    const shape = resolveRequestShape({ bodyTemplate: SPEECH }, undefined, where);
    const bodies = encodePrompts(set, shape);
    expect(decode(bodies[0])).toBe('{"input":"He said \\"hi\\" \\\\ – ü","voice":"af_heart"}');
    expect(JSON.parse(decode(bodies[0]))).toEqual({ input: 'He said "hi" \\ – ü', voice: 'af_heart' });
    expect(decode(encodePrompts(set)[0])).toBe(JSON.stringify({ text: 'He said "hi" \\ – ü' }));
  });

  it('jsonl sends each line with every field as is, and needs a JSONL prompts file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-shape-'));
    const file = join(dir, 'p.jsonl');
    writeFileSync(
      file,
      '{"input":"Hello.","voice":"af_heart","speed":1.1}\n{"input":"Bye.","voice":"bm_george"}\n',
    );
    const shape = resolveRequestShape({ bodyTemplate: 'jsonl' }, undefined, where);
    const bodies = encodePrompts(promptsFor(file, shape), shape);
    expect(bodies.map(decode)).toEqual([
      '{"input":"Hello.","voice":"af_heart","speed":1.1}',
      '{"input":"Bye.","voice":"bm_george"}',
    ]);
    expect(() => promptsFor(undefined, shape)).toThrow(/--body-template jsonl sends each line .* --prompts/);
    const plain = join(dir, 'p.txt');
    writeFileSync(plain, 'Hello.\n');
    expect(() => promptsFor(plain, shape)).toThrow(/line 1 is not a JSON object/);
  });
});

describe('the fingerprint and the request shape', () => {
  const model = { instance_type: 'ml.g5.xlarge', container_env: {}, request: undefined };
  const base = configFingerprint(model, 'a'.repeat(64), 'us-east-1');

  it('a measurement sent with another body, content type or accept has another fingerprint', () => {
    const speech = { ...base, request: { ...DEFAULT_REQUEST_SHAPE, body: SPEECH } };
    expect(fingerprintDifferences(base, speech).map((d) => d.field)).toEqual(['request']);
    expect(fingerprintDifferences(base, speech)[0]?.right).toContain(SPEECH);
    const accept = { ...base, request: { ...DEFAULT_REQUEST_SHAPE, accept: 'audio/mpeg' } };
    expect(fingerprintDifferences(base, accept).map((d) => d.field)).toEqual(['request']);
    const type = { ...base, request: { ...DEFAULT_REQUEST_SHAPE, content_type: 'text/plain' } };
    expect(fingerprintDifferences(base, type).map((d) => d.field)).toEqual(['request']);
  });

  it('an artifact written before the shape was recorded still loads, and reads as the default shape', () => {
    const { request: _request, ...old } = base;
    const parsed = fingerprintSchema.parse(old) as Fingerprint;
    expect(parsed.request).toBeUndefined();
    expect(fingerprintDifferences(parsed, base)).toEqual([]);
    expect(
      fingerprintDifferences(parsed, { ...base, request: { ...DEFAULT_REQUEST_SHAPE, body: SPEECH } }),
    ).toHaveLength(1);
  });

  it("the config's request is the config-side fingerprint's shape (what discovery and the gate compare)", () => {
    const fp = configFingerprint(
      { ...model, request: { body_template: SPEECH } },
      'a'.repeat(64),
      'us-east-1',
    );
    expect(fp.request).toEqual({ body: SPEECH, content_type: 'application/json', accept: 'audio/wav' });
  });
});
