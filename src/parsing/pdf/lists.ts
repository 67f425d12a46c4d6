/**
 * List markers at the start of a line: bullet glyphs (including the private-use code points Symbol and
 * Wingdings bullets come out as) and enumerations `1.` `1)` `(1)` `a)` `a.` `iv.`.
 */
const BULLETS = '•◦▪▫●○■□‣⁃∙·\\-–—*\\u{F0B7}\\u{F0A7}\\u{F076}\\u{F0D8}\\u{F0FC}';
const ENUMERATION = String.raw`(?:\(?\d{1,3}[.)]|\(\d{1,3}\)|\(?[a-z][.)]|\(?[ivxlc]{1,6}[.)])`;

/** A marker followed by the item's text. */
const MARKER_START = new RegExp(String.raw`^(?:([${BULLETS}])|(${ENUMERATION}))\s+(\S.*)$`, 'su');

/** A segment that is nothing but a marker (the marker and its text are often separate runs). */
export const LIST_MARKER_ONLY = new RegExp(String.raw`^(?:[${BULLETS}]|${ENUMERATION})$`, 'u');

export interface ListStart {
  ordered: boolean;
  /** The item's text without its marker. */
  text: string;
}

/** Reads a list marker at the start of a line, if there is one. */
export function readListStart(line: string): ListStart | null {
  const match = MARKER_START.exec(line);
  if (!match) return null;
  const [, bullet, enumeration, text = ''] = match;
  // A lone "-" or "*" only counts with a space after it (already required) and some words behind it.
  if (bullet !== undefined && /[-*]/.test(bullet) && !/\p{L}/u.test(text)) return null;
  return { ordered: enumeration !== undefined, text };
}
