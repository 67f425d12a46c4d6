import type { Extension } from '../model.js';
import type { TextParser } from './input.js';
import { parseCsv } from './parseCsv.js';
import { parseHtml } from './parseHtml.js';
import { parseJson } from './parseJson.js';
import { parseMarkdown } from './parseMarkdown.js';
import { parseRst } from './parseRst.js';
import { parseTxt } from './parseTxt.js';

export type { TextParser } from './input.js';
export { decodeText, type DecodedText, type TextEncoding } from './decode.js';
export { parseCsv, parseHtml, parseJson, parseMarkdown, parseRst, parseTxt };

/** The parser of every text extension (`.htm` and `.markdown` are the same parsers). */
export const textParsers = {
  '.txt': parseTxt,
  '.md': parseMarkdown,
  '.markdown': parseMarkdown,
  '.rst': parseRst,
  '.html': parseHtml,
  '.htm': parseHtml,
  '.json': parseJson,
  '.csv': parseCsv,
} as const satisfies Partial<Record<Extension, TextParser>>;
