/**
 * List-item recognition shared by the plain-text and reStructuredText readers: a marker (bullet or
 * enumerator) followed by whitespace and text.
 */

export interface ListMarker {
  /** Column of the marker. */
  indent: number;
  /** Column where the item text starts (continuation lines are indented at least this far). */
  textColumn: number;
  ordered: boolean;
  /** The item's number for `1.`/`2)`/`(3)` enumerators, else null. */
  number: number | null;
  /** True for single-letter or roman enumerators, which need company to count as a list. */
  weak: boolean;
  text: string;
}

/** Bullets, including the Symbol/Wingdings private-use code points PDF text extraction yields. */
const BULLET = /^(\s*)([-*+•‣◦▪⁃–·●○■□►➢✓✔\uf000-\uf0ff])(\s+)(\S.*)$/;
const ENUMERATED = /^(\s*)(\(?)(\d{1,3}|#|[a-zA-Z]|[ivxlcdm]{2,6}|[IVXLCDM]{2,6})([.)])(\s+)(\S.*)$/;

export function matchListMarker(line: string): ListMarker | null {
  const bullet = BULLET.exec(line);
  if (bullet) {
    const [, indent = '', marker = '', gap = '', text = ''] = bullet;
    return {
      indent: indent.length,
      textColumn: indent.length + marker.length + gap.length,
      ordered: false,
      number: null,
      weak: false,
      text,
    };
  }
  const enumerated = ENUMERATED.exec(line);
  if (!enumerated) return null;
  const [, indent = '', open = '', label = '', close = '', gap = '', text = ''] = enumerated;
  // "(a." is not an enumerator: an opening parenthesis needs a closing one.
  if (open && close !== ')') return null;
  const number = /^\d+$/.test(label) ? Number(label) : null;
  return {
    indent: indent.length,
    textColumn: indent.length + open.length + label.length + close.length + gap.length,
    ordered: true,
    number,
    weak: number === null && label !== '#',
    text,
  };
}

/** Indentation in columns (tabs count as up to the next multiple of 8, as RST does). */
export function indentOf(line: string): number {
  let column = 0;
  for (const char of line) {
    if (char === ' ') column += 1;
    else if (char === '\t') column += 8 - (column % 8);
    else break;
  }
  return column;
}

/**
 * Turns nesting into the flattened item text the model keeps: two spaces per level below the
 * first, computed from the markers' columns.
 */
export function createIndentTracker(): (indent: number) => string {
  const stack: number[] = [];
  return (indent) => {
    while (stack.length > 0 && indent < (stack[stack.length - 1] ?? 0)) stack.pop();
    if (stack.length === 0 || indent > (stack[stack.length - 1] ?? 0)) stack.push(indent);
    return '  '.repeat(stack.length - 1);
  };
}
