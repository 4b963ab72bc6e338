import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROMPTS, encodePrompts, loadPrompts, parsePrompts } from '../../src/load/prompts.js';
import { parseTransportKind } from '../../src/load/transport/transports.js';

describe('prompts', () => {
  it('the built-in set is varied English of 20-200 characters', () => {
    expect(DEFAULT_PROMPTS.length).toBeGreaterThanOrEqual(20);
    for (const text of DEFAULT_PROMPTS) {
      expect(text.length).toBeGreaterThanOrEqual(10);
      expect(text.length).toBeLessThanOrEqual(200);
    }
    const lengths = DEFAULT_PROMPTS.map((t) => t.length);
    expect(Math.max(...lengths) - Math.min(...lengths)).toBeGreaterThan(80);
    expect(new Set(DEFAULT_PROMPTS).size).toBe(DEFAULT_PROMPTS.length);
  });

  it('reads JSONL {"text": ...} and plain lines, skipping blank lines', () => {
    const set = parsePrompts(
      '{"text": "First one."}\n\nSecond, plain.\n{"text":"Third","voice":"x"}\n',
      'p.jsonl',
    );
    expect(set.texts).toEqual(['First one.', 'Second, plain.', 'Third']);
    expect(set.source).toBe('p.jsonl');
  });

  it('names the file and line of a malformed prompt, and refuses an empty file', () => {
    expect(() => parsePrompts('ok\n{"text": \n', 'bad.jsonl')).toThrow(/--prompts bad\.jsonl: line 2/);
    expect(() => parsePrompts('{"voice": "x"}', 'bad.jsonl')).toThrow(/"text"/);
    expect(() => parsePrompts('\n\n', 'empty.txt')).toThrow(/no prompts/);
    expect(() => loadPrompts('/nonexistent/prompts.txt')).toThrow(/--prompts .*no such file/);
  });

  it('loads a file and encodes each prompt as the container contract body', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-prompts-'));
    const file = join(dir, 'p.txt');
    writeFileSync(file, 'Hello "world".\n');
    const [body] = encodePrompts(loadPrompts(file));
    expect(JSON.parse(Buffer.from(body as Uint8Array).toString())).toEqual({ text: 'Hello "world".' });
  });
});

describe('transports', () => {
  it('asking for bidirectional streaming explains that no JavaScript SDK client exists for it', () => {
    expect(() => parseTransportKind('bidirectional')).toThrow(/InvokeEndpointWithBidirectionalStream/);
    expect(() => parseTransportKind('bidirectional')).toThrow(/no JavaScript SDK client/);
  });

  it('knows response-stream (alias sagemaker), http and sdk (the SDK client kept for reference), and names the choices otherwise', () => {
    expect(parseTransportKind('sagemaker')).toBe('response-stream');
    expect(parseTransportKind('HTTP')).toBe('http');
    expect(parseTransportKind('sdk')).toBe('sdk');
    expect(() => parseTransportKind('grpc')).toThrow(/response-stream, http, sdk/);
  });
});
