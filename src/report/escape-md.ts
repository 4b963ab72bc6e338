/**
 * Escaping for text that comes from artifacts (model names, notes, finding details, file names)
 * before it enters GitHub-flavoured Markdown. An artifact is a file anyone can edit in a pull
 * request: nothing in it may become a tag, a link, an image, a mention, a heading, or a table
 * cell boundary in the PR comment or the job summary.
 */

const ZERO_WIDTH_SPACE = '\u200b';

/**
 * Characters that open Markdown or HTML constructs anywhere in a line: emphasis, code, links and
 * images, raw HTML and entities, tables, strikethrough, math (`$`), headings and references (`#`).
 * (CommonMark allows a backslash before any ASCII punctuation; these are the ones that matter.)
 */
const INLINE_SPECIAL = /[\\`*_[\]<>&|~!$#]/g;
/** Line-start constructs: bullets, setext underlines, block quotes, ordered-list markers. */
const LINE_START = /^(\s*)([+\-=>]|\d+(?=[.)]))/;

/**
 * Bidi controls (embeddings, overrides, isolates, marks): they make a line read differently from
 * what it says (a `fix:` that displays as one command and copies as another). Dropped.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** One line of plain text: newlines and other control characters become spaces; bidi controls go. */
function oneLine(text: string): string {
  return (
    text
      .replace(BIDI_CONTROLS, '')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what we strip
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
  );
}

/**
 * Plain text, rendered literally: no Markdown, no HTML, no entity, no autolink, no mention.
 * Safe in headings, list items and table cells (`|` is escaped too), and, with `lineStart`,
 * where the text begins a line (a paragraph), where `-`, `+`, `=`, `>` and `1.` mean blocks.
 */
export function escapeMarkdown(text: unknown, { lineStart = false } = {}): string {
  let s = oneLine(String(text ?? '')).replace(INLINE_SPECIAL, (c) => `\\${c}`);
  if (lineStart) {
    s = s.replace(LINE_START, (_m, space: string, mark: string) =>
      /^\d/.test(mark) ? `${space}${mark}\\` : `${space}\\${mark}`,
    );
  }
  return (
    s
      // GitHub links @user, #123 and emails in rendered text, escaped or not: a zero-width space breaks them.
      .replace(/@/g, `@${ZERO_WIDTH_SPACE}`)
      .replace(/\\#(?=\d)/g, `\\#${ZERO_WIDTH_SPACE}`)
      // GH-123 is a cross-reference too (case-insensitive), and so is owner/repo#123 (its # is
      // broken above).
      .replace(/\b(gh)-(?=\d)/gi, `$1-${ZERO_WIDTH_SPACE}`)
      // Extended autolinks (www., scheme://) are recognised in text after escapes are resolved.
      .replace(/:\/\//g, `:${ZERO_WIDTH_SPACE}//`)
      .replace(/www\./gi, (m) => `${m.slice(0, 3)}${ZERO_WIDTH_SPACE}.`)
  );
}

/**
 * Text as a code span. Code spans render their content literally (no HTML, no entities), so only
 * backticks (which would close the span) and newlines need care. `inTable` escapes `|`, which
 * GFM's table parser splits on even inside code spans.
 */
export function codeSpan(text: unknown, { inTable = false } = {}): string {
  let s = oneLine(String(text ?? ''));
  if (inTable) s = s.replace(/\|/g, '\\|');
  const longestRun = Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = s.startsWith('`') || s.endsWith('`') || s === '' ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}

/**
 * Text in which `backticked` parts are commands (finding fixes are written that way): those
 * become code spans, the rest is escaped as plain text. An unbalanced backtick makes the whole
 * string plain text.
 */
export function inlineMarkdown(text: unknown, { inTable = false } = {}): string {
  const s = oneLine(String(text ?? ''));
  const parts = s.split('`');
  if (parts.length % 2 === 0) return escapeMarkdown(s);
  return parts
    .map((part, i) => (i % 2 === 1 ? (part === '' ? '' : codeSpan(part, { inTable })) : escapeMarkdown(part)))
    .join('');
}

/** A value for an HTML comment's body (our hidden markers): nothing can close the comment. */
export function markerValue(text: unknown): string {
  return oneLine(String(text ?? '')).replace(/[^A-Za-z0-9._:+-]/g, (c) =>
    encodeURIComponent(c).replace(/[!'()*]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`),
  );
}

/** A Mermaid quoted string: Mermaid has no escape for `"`, so it and anything odd are dropped. */
export function mermaidText(text: unknown): string {
  return oneLine(String(text ?? ''))
    .replace(/[^A-Za-z0-9 _.,:=()%/+-]/g, '')
    .slice(0, 80);
}

/** A Markdown table; every cell must already be escaped (or be a code span). */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
