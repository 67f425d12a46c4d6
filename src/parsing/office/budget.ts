import { throwIfAborted } from '../abort.js';
import type { ParseContext } from '../context.js';
import { ParseError } from '../errors.js';

/** Per-document accounting shared by the office parsers: text size, table cells and abort checks. */
export interface Budget {
  /** Counts extracted characters; over `maxTextChars` is `too_large`. */
  addText(text: string): void;
  /** Counts table cells; over `maxCells` is `too_large`. */
  addCells(count: number): void;
  /** Throws the signal's `ParseError` (`aborted`, `timeout`) once the caller has gone away. */
  checkAborted(): void;
}

export function createBudget(ctx: Pick<ParseContext, 'limits' | 'signal'>): Budget {
  let chars = 0;
  let cells = 0;
  return {
    addText(text) {
      chars += text.length;
      if (chars > ctx.limits.maxTextChars) {
        throw new ParseError(
          'too_large',
          `the document has more than ${ctx.limits.maxTextChars} characters of text`,
        );
      }
    },
    addCells(count) {
      cells += count;
      if (cells > ctx.limits.maxCells) {
        throw new ParseError('too_large', `the document has more than ${ctx.limits.maxCells} table cells`);
      }
    },
    checkAborted() {
      throwIfAborted(ctx.signal);
    },
  };
}

/** Pages, slides or sheets over `maxPages` are `too_large`. */
export function assertPageCount(count: number, maxPages: number, unit: 'pages' | 'slides' | 'sheets'): void {
  if (count > maxPages) {
    throw new ParseError('too_large', `the document has ${count} ${unit}; at most ${maxPages} are allowed`);
  }
}

/**
 * Whitespace tidied, nothing else: runs of spaces/tabs/no-break spaces become one space, each line is
 * trimmed, blank lines dropped. Line breaks the author typed stay as `\n`.
 */
export function tidyText(text: string): string {
  if (!/[\s\u00a0]/.test(text)) return text;
  return text
    .split(/\r\n|[\r\n\u2028\u2029\v\f]/)
    .map((line) => line.replace(/[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}
