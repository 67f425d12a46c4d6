import { TextDecoder } from 'node:util';
import type { ParseLimits } from '../context.js';
import { ParseError } from '../errors.js';
import type { Budget } from './budget.js';
import { decodeEntities } from './xml.js';
import { blankMergedCells, parseRef, usedRange } from './xlsxRange.js';
import { cleanText, richText } from './xlsxStrings.js';
import { formatNumber, renderIsoDate, renderNumber, type ValueKind } from './xlsxValues.js';

/** Everything a worksheet's cells need from the rest of the workbook. */
export interface SheetEnv {
  sharedStrings: readonly string[];
  formats: readonly ValueKind[];
  date1904: boolean;
  budget: Budget;
  /** Cells with a value (`maxCells`), rows (`maxRows`), columns (`maxRowFields`), value length (`maxFieldChars`). */
  limits: Pick<ParseLimits, 'maxCells' | 'maxRows' | 'maxRowFields' | 'maxFieldChars'>;
}

/** A sheet's used range: rows and columns outside the first/last non-empty cell are trimmed. */
export interface SheetTable {
  cells: string[][];
  /** Cells that had a value (before trimming, after merges were blanked). */
  filled: number;
}

// Every pattern stops at the next "<" (attribute values and text never contain one), so each
// character is looked at a bounded number of times: malformed input such as a million unclosed
// `<si>` cannot make a scan quadratic.
const PREFIX = '(?:[\\w.-]+:)?';
/** Opening `<row …>` and `<c …>` tags (with an optional namespace prefix, as some writers use). */
const ROW_OR_CELL = new RegExp(`<(${PREFIX})(row|c)\\b([^<>]*?)(/?)>`, 'g');
const SHEET_DATA = new RegExp(`<${PREFIX}sheetData\\b`);
const SHEET_DATA_END = new RegExp(`</${PREFIX}sheetData>`);
const ATTRIBUTE = /(?:^|\s)(r|t|s)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const VALUE = new RegExp(`<${PREFIX}v>([^<]*)</${PREFIX}v>`);
const FORMULA = new RegExp(`<${PREFIX}f\\b[^<>]*?(?:/>|>([^<]*)</${PREFIX}f>)`);
/** Markup a cell may carry besides its value (a formula, rich-text runs): beyond this it is refused. */
const CELL_MARKUP_ALLOWANCE = 64 * 1024;
/** Merged ranges after the cells are kept to be applied at the end; more text than this there is refused. */
const MAX_TAIL_CHARS = 16 * 1024 * 1024;

/**
 * Scans a worksheet's XML as it is inflated, with regular expressions instead of an object tree:
 * a million-row sheet is hundreds of megabytes of `<c>` elements, and neither the text nor a tree
 * of it is ever held — only the cells with values. Values: shared and inline strings, booleans,
 * errors, numbers (dates and percentages per the cell's number format) and formulas by their
 * cached value. Merged ranges keep the value in their first cell. Rows, columns, value length and
 * cells with values are checked against the limits as they are read (`too_large`).
 */
export async function scanSheet(chunks: AsyncIterable<Buffer>, env: SheetEnv): Promise<SheetTable> {
  const scanner = createSheetScanner(env);
  const decoder = createXmlDecoder();
  for await (const chunk of chunks) {
    scanner.push(decoder.decode(chunk));
    env.budget.checkAborted();
  }
  scanner.push(decoder.flush());
  return scanner.finish();
}

/** UTF-8, or UTF-16 when the part starts with a byte-order mark; characters split across chunks are kept whole. */
function createXmlDecoder(): { decode(chunk: Buffer): string; flush(): string } {
  let decoder: TextDecoder | null = null;
  return {
    decode(chunk) {
      if (!decoder) {
        const encoding =
          chunk[0] === 0xff && chunk[1] === 0xfe
            ? 'utf-16le'
            : chunk[0] === 0xfe && chunk[1] === 0xff
              ? 'utf-16be'
              : 'utf-8';
        decoder = new TextDecoder(encoding);
      }
      return decoder.decode(chunk, { stream: true });
    },
    flush: () => decoder?.decode() ?? '',
  };
}

interface SheetScanner {
  /** Scans the next piece of the sheet's text; an element cut by the piece's end waits for the next one. */
  push(text: string): void;
  finish(): SheetTable;
}

function createSheetScanner(env: SheetEnv): SheetScanner {
  const { limits } = env;
  const rows: (string[] | undefined)[] = [];
  let pending = '';
  let state: 'before' | 'cells' | 'after' = 'before';
  let tail = '';
  let minRow = Infinity;
  let maxRow = -1;
  let filled = 0;
  let rowIndex = -1;
  let colIndex = -1;

  const tooLarge = (what: string, limit: number, setting: string): ParseError =>
    new ParseError('too_large', `a worksheet has ${what}; the limit is ${limit} (${setting})`);

  /** Reads the complete row and cell elements of `text`; returns where the unread rest starts. */
  function scanCells(text: string, stop: number): number {
    let consumed = 0;
    ROW_OR_CELL.lastIndex = 0;
    for (let match = ROW_OR_CELL.exec(text); match && match.index < stop; match = ROW_OR_CELL.exec(text)) {
      const [, prefix = '', tag, attrs = '', selfClosing] = match;
      let end = ROW_OR_CELL.lastIndex;
      let inner = '';
      if (tag === 'c' && selfClosing !== '/') {
        const close = `</${prefix}c>`;
        const at = text.indexOf(close, end);
        if (at === -1 || at > stop) {
          // Held until its end arrives, so a cell whose markup never ends must not grow without bound.
          if (text.length - match.index > limits.maxFieldChars * 2 + CELL_MARKUP_ALLOWANCE) {
            throw tooLarge(
              `a cell whose markup runs past ${limits.maxFieldChars * 2 + CELL_MARKUP_ALLOWANCE} characters`,
              limits.maxFieldChars,
              'PARSE_MAX_FIELD_CHARS',
            );
          }
          return match.index;
        }
        inner = text.slice(end, at);
        end = at + close.length;
        ROW_OR_CELL.lastIndex = end;
      }
      consumed = end;
      const { r, t, s } = readAttributes(attrs);
      if (tag === 'row') {
        const declared = r === undefined ? NaN : Number.parseInt(r, 10) - 1;
        rowIndex = Number.isInteger(declared) && declared >= 0 ? declared : rowIndex + 1;
        colIndex = -1;
        if (rowIndex >= limits.maxRows)
          throw tooLarge(`more than ${limits.maxRows} rows`, limits.maxRows, 'PARSE_MAX_ROWS');
        continue;
      }
      placeCell(r, inner === '' ? '' : cellValue(inner, t, s, env));
    }
    // Nothing complete is left before the last "<": keep only what may be the start of a cut tag.
    return Math.max(consumed, Math.min(text.lastIndexOf('<'), stop));
  }

  function placeCell(ref: string | undefined, value: string): void {
    const position = ref === undefined ? null : parseRef(ref);
    if (position) {
      rowIndex = position.row;
      colIndex = position.col;
    } else {
      colIndex += 1;
    }
    if (rowIndex < 0) rowIndex = 0;
    if (value === '') return;
    if (rowIndex >= limits.maxRows)
      throw tooLarge(`more than ${limits.maxRows} rows`, limits.maxRows, 'PARSE_MAX_ROWS');
    if (colIndex >= limits.maxRowFields) {
      throw tooLarge(`more than ${limits.maxRowFields} columns`, limits.maxRowFields, 'PARSE_MAX_ROW_FIELDS');
    }
    if (value.length > limits.maxFieldChars) {
      throw tooLarge(
        `a cell longer than ${limits.maxFieldChars} characters`,
        limits.maxFieldChars,
        'PARSE_MAX_FIELD_CHARS',
      );
    }
    filled += 1;
    if (filled > limits.maxCells) {
      throw new ParseError('too_large', `a worksheet has more than ${limits.maxCells} cells with values`);
    }
    let row = rows[rowIndex];
    if (!row) {
      row = [];
      rows[rowIndex] = row;
    }
    row[colIndex] = value;
    if (rowIndex < minRow) minRow = rowIndex;
    if (rowIndex > maxRow) maxRow = rowIndex;
  }

  return {
    push(text) {
      if (state === 'after') {
        tail += text;
        if (tail.length > MAX_TAIL_CHARS)
          throw tooLarge('too much markup after its cells', MAX_TAIL_CHARS, 'characters');
        return;
      }
      pending += text;
      if (state === 'before') {
        const start = pending.search(SHEET_DATA);
        // Keep enough to find a `<sheetData` cut in two by the chunk boundary.
        if (start === -1) {
          pending = pending.slice(-64);
          return;
        }
        pending = pending.slice(start);
        state = 'cells';
      }
      const end = pending.search(SHEET_DATA_END);
      const stop = end === -1 ? pending.length : end;
      const rest = scanCells(pending, stop);
      if (end === -1) {
        pending = pending.slice(rest);
      } else {
        tail = pending.slice(end);
        pending = '';
        state = 'after';
      }
    },
    finish() {
      if (filled === 0) return { cells: [], filled: 0 };
      filled -= blankMergedCells(tail, rows);
      const bounds = usedRange(rows, minRow, maxRow);
      if (!bounds) return { cells: [], filled: 0 };
      const width = bounds.maxCol - bounds.minCol + 1;
      env.budget.addCells((bounds.maxRow - bounds.minRow + 1) * width);
      const cells: string[][] = [];
      for (let r = bounds.minRow; r <= bounds.maxRow; r += 1) {
        const source = rows[r];
        const row = new Array<string>(width);
        for (let c = 0; c < width; c += 1) row[c] = source?.[bounds.minCol + c] ?? '';
        cells.push(row);
      }
      return { cells, filled };
    },
  };
}

function readAttributes(attrs: string): { r?: string; t?: string; s?: string } {
  if (attrs === '') return {};
  // Fast path for the usual ` r="A1" s="3" t="s"`; anything unusual goes through the regex.
  if (!attrs.includes("'") && !/\s=|=\s|[\t\n\r]/.test(attrs)) {
    return { r: quoted(attrs, ' r="'), t: quoted(attrs, ' t="'), s: quoted(attrs, ' s="') };
  }
  const found: { r?: string; t?: string; s?: string } = {};
  ATTRIBUTE.lastIndex = 0;
  for (let match = ATTRIBUTE.exec(attrs); match; match = ATTRIBUTE.exec(attrs)) {
    const name = match[1] as 'r' | 't' | 's';
    found[name] = match[2] ?? match[3] ?? '';
  }
  return found;
}

function quoted(attrs: string, key: string): string | undefined {
  const at = attrs.indexOf(key);
  if (at === -1) return undefined;
  const start = at + key.length;
  const end = attrs.indexOf('"', start);
  return end === -1 ? undefined : attrs.slice(start, end);
}

function cellValue(
  inner: string,
  type: string | undefined,
  style: string | undefined,
  env: SheetEnv,
): string {
  if (type === 'inlineStr') return richText(inner);
  const raw = VALUE.exec(inner)?.[1];
  if (raw === undefined) {
    // No cached value: show the formula itself rather than nothing.
    const formula = FORMULA.exec(inner)?.[1];
    return formula ? `=${decodeEntities(formula).trim()}` : '';
  }
  switch (type) {
    case 's': {
      const text = env.sharedStrings[Number.parseInt(raw, 10)];
      return text === undefined ? '' : text;
    }
    case 'b':
      return raw.trim() === '1' || raw.trim() === 'true' ? 'TRUE' : 'FALSE';
    case 'str':
    case 'e':
      return cleanText(decodeEntities(raw));
    case 'd':
      return renderIsoDate(decodeEntities(raw));
    default: {
      const kind = style === undefined ? 'number' : (env.formats[Number.parseInt(style, 10)] ?? 'number');
      return kind === 'number' ? numberText(raw) : renderNumber(raw, kind, env.date1904);
    }
  }
}

function numberText(raw: string): string {
  const value = Number(raw);
  return raw.trim() !== '' && Number.isFinite(value) ? formatNumber(value) : raw.trim();
}
