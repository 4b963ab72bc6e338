/**
 * escapeMarkdown on text from artifacts: no GitHub cross-reference can come from a file in a pull
 * request, and no bidi control can make a line read differently from what it is.
 */
import { describe, expect, it } from 'vitest';
import { codeSpan, escapeMarkdown, inlineMarkdown } from '../../src/report/escape-md.js';

const ZWSP = '\u200b';

describe('escapeMarkdown defuses what GitHub links or reorders', () => {
  it('breaks GH-<n> autolinks (any case), so artifact text never cross-references an issue', () => {
    expect(escapeMarkdown('see GH-123 and gh-7')).toBe(`see GH-${ZWSP}123 and gh-${ZWSP}7`);
    expect(escapeMarkdown('GH-123')).not.toMatch(/GH-\d/);
    // Not a reference: left alone.
    expect(escapeMarkdown('HIGH-5 GH-x')).toBe('HIGH-5 GH-x');
  });

  it('strips bidi controls (override, embedding, isolate, marks) in plain text, code spans and fixes', () => {
    const tricky = 'rm -rf \u202e/ tuo\u202c \u2066x\u2069 \u200fy\u061c';
    for (const out of [escapeMarkdown(tricky), codeSpan(tricky), inlineMarkdown(`run \`${tricky}\``)]) {
      expect(out).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
    }
    expect(codeSpan('a\u202eb')).toBe('`ab`');
  });

  it('turns C1 control characters into spaces like the C0 ones', () => {
    expect(escapeMarkdown('a\u0085b\u009bc')).toBe('a b c');
  });
});
