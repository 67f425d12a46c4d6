import type { ParseContext } from '../context.js';
import { ParseError } from '../errors.js';
import type { ParsedDocument } from '../model.js';
import { decodeText, type DecodedText } from './decode.js';
import { throwIfAborted } from '../abort.js';

/** Signature every parser shares. */
export type TextParser = (bytes: Uint8Array, ctx: ParseContext) => Promise<ParsedDocument>;

/**
 * The checks every text parser starts with (abort, empty input, `maxInputBytes`), then decoding.
 * Whitespace-only text is as empty as zero bytes.
 */
export function readTextInput(bytes: Uint8Array, ctx: ParseContext): DecodedText {
  throwIfAborted(ctx.signal);
  if (bytes.length === 0) throw new ParseError('empty_document', `${ctx.fileName} is empty (0 bytes)`);
  if (bytes.length > ctx.limits.maxInputBytes) {
    throw new ParseError(
      'too_large',
      `${ctx.fileName} is ${bytes.length} bytes; the limit is ${ctx.limits.maxInputBytes} (maxInputBytes)`,
    );
  }
  const decoded = decodeText(bytes);
  // A test, not trim(), which copies the whole text when it ends in a line break (most files do).
  if (!/\S/.test(decoded.text))
    throw new ParseError('empty_document', `${ctx.fileName} contains only whitespace`);
  return decoded;
}

/** Splits on any line ending (LF, CRLF, lone CR). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Horizontal whitespace runs (tabs, no-break and other Unicode spaces) → one space; ends trimmed. */
export function tidyLine(line: string): string {
  // Most lines are single-spaced already: one test instead of a replacement that copies them.
  if (!line.includes('  ') && !ODD_SPACE.test(line)) return line.trim();
  return line.replace(/[\t\v\f \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g, ' ').trim();
}

// With no double space, only these can make a run that needs tidying.
const ODD_SPACE = /[\t\v\f\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/;

/** Tidies each line, drops blank ones, keeps line breaks (the cleaning stage joins lines). */
export function tidyLines(lines: readonly string[]): string {
  let tidied = '';
  for (const line of lines) {
    const tidy = tidyLine(line);
    if (tidy !== '') tidied = tidied === '' ? tidy : `${tidied}\n${tidy}`;
  }
  return tidied;
}

/** A set from a whitespace-separated word list (long lists of tag or directive names). */
export function wordSet(words: string): ReadonlySet<string> {
  return new Set(words.split(/\s+/).filter((word) => word !== ''));
}
