/** Cell references and ranges of a worksheet: `B12`, merged ranges, the used range. */

const PREFIX = '(?:[\\w.-]+:)?';
const MERGE = new RegExp(
  `<${PREFIX}mergeCell\\b[^<>]*?\\bref\\s*=\\s*["']([A-Za-z]+\\d+):([A-Za-z]+\\d+)["']`,
  'g',
);

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

/** Clears every cell of each merged range (listed after the cells) except its top-left one; returns how many values it removed. */
export function blankMergedCells(tail: string, rows: (string[] | undefined)[]): number {
  let removed = 0;
  MERGE.lastIndex = 0;
  for (let match = MERGE.exec(tail); match; match = MERGE.exec(tail)) {
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

const NON_BLANK = /[^\s\u00a0]/;

/** The smallest rectangle holding every cell with visible text (rows and columns 0-based, inclusive). */
export function usedRange(
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
      // A cell holding only spaces is what a spreadsheet "clears" a cell to: it does not extend the range.
      if (value === undefined || !NON_BLANK.test(value)) return;
      if (r < top) top = r;
      if (r > bottom) bottom = r;
      if (c < left) left = c;
      if (c > right) right = c;
    });
  }
  return bottom === -1 ? null : { minRow: top, maxRow: bottom, minCol: left, maxCol: right };
}
