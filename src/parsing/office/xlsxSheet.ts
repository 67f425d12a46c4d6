import { ParseError } from '../errors.js';
import type { Budget } from './budget.js';
import { decodeEntities } from './xml.js';
import { formatNumber, renderIsoDate, renderNumber, type ValueKind } from './xlsxValues.js';

/** Everything a worksheet's cells need from the rest of the workbook. */
export interface SheetEnv {
  sharedStrings: readonly string[];
  formats: readonly ValueKind[];
  date1904: boolean;
  budget: Budget;
  /** Most cells with a value one sheet may hold before the scan stops (`too_large`). */
  maxCells: number;
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
const ATTRIBUTE = /(?:^|\s)(r|t|s)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const VALUE = new RegExp(`<${PREFIX}v>([^<]*)</${PREFIX}v>`);
const FORMULA = new RegExp(`<${PREFIX}f\\b[^<>]*?(?:/>|>([^<]*)</${PREFIX}f>)`);
/** Any tag, then the text after it up to the next tag: `[, "/"?, name, "/"?, text]`. */
const TAG = new RegExp(`<(/?)${PREFIX}([\\w.-]+)[^<>]*?(/?)>([^<]*)`, 'g');
const MERGE = new RegExp(
  `<${PREFIX}mergeCell\\b[^<>]*?\\bref\\s*=\\s*["']([A-Za-z]+\\d+):([A-Za-z]+\\d+)["']`,
  'g',
);

/**
 * Scans a worksheet's XML with regular expressions instead of building an object tree: a 50,000-row
 * sheet is tens of megabytes of `<c>` elements and a tree would cost seconds and hundreds of MB.
 * Values: shared and inline strings, booleans, errors, numbers (dates and percentages per the cell's
 * number format) and formulas by their cached value. Merged ranges keep the value in their first cell.
 */
export function scanSheet(xml: string, env: SheetEnv): SheetTable {
  const start = xml.search(SHEET_DATA);
  // The closing `</sheetData>` (a self-closing `<sheetData/>` has none: no cells).
  const stop = xml.lastIndexOf('sheetData>');
  if (start === -1 || stop < start) return { cells: [], filled: 0 };
  const rows: (string[] | undefined)[] = [];
  let minRow = Infinity;
  let maxRow = -1;
  let filled = 0;
  let rowIndex = -1;
  let colIndex = -1;

  ROW_OR_CELL.lastIndex = start;
  for (let match = ROW_OR_CELL.exec(xml); match && match.index < stop; match = ROW_OR_CELL.exec(xml)) {
    const [, prefix = '', tag, attrs = '', selfClosing] = match;
    const { r, t, s } = readAttributes(attrs);
    if (tag === 'row') {
      const declared = r === undefined ? NaN : Number.parseInt(r, 10) - 1;
      rowIndex = Number.isInteger(declared) && declared >= 0 ? declared : rowIndex + 1;
      colIndex = -1;
      continue;
    }
    let inner = '';
    if (selfClosing !== '/') {
      const close = `</${prefix}c>`;
      const end = xml.indexOf(close, ROW_OR_CELL.lastIndex);
      if (end === -1) throw new ParseError('corrupt_document', 'a worksheet cell is not closed');
      inner = xml.slice(ROW_OR_CELL.lastIndex, end);
      ROW_OR_CELL.lastIndex = end + close.length;
    }
    const position = r === undefined ? null : parseRef(r);
    if (position) {
      rowIndex = position.row;
      colIndex = position.col;
    } else {
      colIndex += 1;
    }
    if (rowIndex < 0) rowIndex = 0;
    const value = inner === '' ? '' : cellValue(inner, t, s, env);
    if (value === '') continue;
    filled += 1;
    if (filled > env.maxCells) {
      throw new ParseError('too_large', `a worksheet has more than ${env.maxCells} cells with values`);
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
  if (filled === 0) return { cells: [], filled: 0 };

  filled -= blankMergedCells(xml, rows);
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

/** An inline string (`<is>`): the text of its runs, without phonetic guides, `_xHHHH_` escapes decoded. */
export function richText(xml: string): string {
  let text = '';
  walkText(xml, (chunk) => {
    text += chunk;
  });
  return cleanText(decodeEntities(text));
}

/** Reads `xl/sharedStrings.xml`, one string per `<si>` (rich text runs joined, phonetic guides dropped). */
export function scanSharedStrings(xml: string, budget: Budget): string[] {
  const strings: string[] = [];
  let current: string | null = null;
  const finish = (text: string): void => {
    const clean = cleanText(decodeEntities(text));
    budget.addText(clean);
    strings.push(clean);
  };
  walkText(
    xml,
    (chunk) => {
      if (current !== null) current += chunk;
    },
    (event) => {
      if (event === 'open') current = '';
      else if (event === 'empty') finish('');
      else if (current !== null) {
        finish(current);
        current = null;
      }
    },
  );
  return strings;
}

/**
 * One linear pass over the tags: hands over the text of each `<t>` outside `<rPh>` (phonetic
 * guides), and tells `onItem` where each `<si>` opens and closes.
 */
function walkText(
  xml: string,
  onText: (text: string) => void,
  onItem?: (event: 'open' | 'close' | 'empty') => void,
): void {
  let phonetic = 0;
  TAG.lastIndex = 0;
  for (let match = TAG.exec(xml); match; match = TAG.exec(xml)) {
    const [, closing, name, selfClosing, after = ''] = match;
    if (name === 't') {
      if (!closing && !selfClosing && phonetic === 0) onText(after);
    } else if (name === 'rPh') {
      if (closing) phonetic = Math.max(phonetic - 1, 0);
      else if (!selfClosing) phonetic += 1;
    } else if (name === 'si' && onItem) {
      onItem(closing ? 'close' : selfClosing ? 'empty' : 'open');
    }
  }
}

function cleanText(text: string): string {
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_whole, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/** `B12` → row 11, column 1 (0-based); null when the reference is malformed. */
export function parseRef(ref: string): { row: number; col: number } | null {
  let i = 0;
  if (ref.charCodeAt(i) === 36) i += 1; // $
  let col = 0;
  let letters = 0;
  for (; i < ref.length; i += 1) {
    const code = ref.charCodeAt(i) & ~32; // upper case
    if (code < 65 || code > 90) break;
    col = col * 26 + (code - 64);
    letters += 1;
  }
  if (ref.charCodeAt(i) === 36) i += 1;
  let row = 0;
  let digits = 0;
  for (; i < ref.length; i += 1) {
    const code = ref.charCodeAt(i);
    if (code < 48 || code > 57) return null;
    row = row * 10 + (code - 48);
    digits += 1;
  }
  if (letters === 0 || letters > 3 || digits === 0 || digits > 7 || row < 1) return null;
  return { row: row - 1, col: col - 1 };
}

/** Clears every cell of each merged range except its top-left one; returns how many values it removed. */
function blankMergedCells(xml: string, rows: (string[] | undefined)[]): number {
  let removed = 0;
  // Merged ranges are listed after the cells: no need to scan the rows again.
  MERGE.lastIndex = Math.max(xml.lastIndexOf('sheetData>'), 0);
  for (let match = MERGE.exec(xml); match; match = MERGE.exec(xml)) {
    const from = parseRef(match[1] ?? '');
    const to = parseRef(match[2] ?? '');
    if (!from || !to) continue;
    for (let r = from.row; r <= to.row; r += 1) {
      const row = rows[r];
      if (!row) continue;
      for (let c = from.col; c <= to.col; c += 1) {
        if ((r !== from.row || c !== from.col) && row[c] !== undefined) {
          row[c] = '';
          removed += 1;
        }
      }
    }
  }
  return removed;
}

function usedRange(
  rows: (string[] | undefined)[],
  minRow: number,
  maxRow: number,
): { minRow: number; maxRow: number; minCol: number; maxCol: number } | null {
  let top = Infinity;
  let bottom = -1;
  let left = Infinity;
  let right = -1;
  for (let r = minRow; r <= maxRow; r += 1) {
    const row = rows[r];
    if (!row) continue;
    row.forEach((value, c) => {
      if (value === undefined || value === '') return;
      if (r < top) top = r;
      if (r > bottom) bottom = r;
      if (c < left) left = c;
      if (c > right) right = c;
    });
  }
  return bottom === -1 ? null : { minRow: top, maxRow: bottom, minCol: left, maxCol: right };
}
