import { createHash } from 'node:crypto';
import { collapseWhitespace } from './whitespace.js';

/** Characters normalised and collapsed at a time: a bounded piece, whatever the document's size. */
const SLICE_CHARS = 1 << 16;
const WHITESPACE = /\s/g;

/**
 * The digest that finds the same content again: SHA-256 of the text in NFC with every run of
 * whitespace made one space, and none at either end, so the same text re-exported or re-wrapped is
 * the same content.
 *
 * Computed slice by slice, each cut just before a whitespace character: normalising a 14 MB text
 * whole and collapsing its whitespace with one `replace` built a rope of one piece per word (some
 * 170 MB live for a 4.8 MB DOCX). Cutting before whitespace changes nothing: no whitespace
 * character composes with its neighbours under NFC, and a run cut in two is one space again.
 * The digest is the one stored documents have (their content claims are keyed by it).
 */
export function contentHashOf(text: string): string {
  const hash = createHash('sha256');
  let wrote = false;
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    if (end < text.length) {
      WHITESPACE.lastIndex = end;
      end = WHITESPACE.exec(text)?.index ?? text.length;
    }
    // Every cut is before whitespace: two pieces with text between them were apart by a space.
    const piece = collapseWhitespace(text.slice(start, end).normalize('NFC'));
    start = end;
    if (piece.length === 0) continue;
    if (wrote) hash.update(' ');
    hash.update(piece);
    wrote = true;
  }
  return hash.digest('hex');
}
