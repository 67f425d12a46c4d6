import type { DocumentMetadata } from '../model.js';
import type { PageText } from './pageText.js';
import type { PdfDocument, PdfjsModule } from './pdfjs.js';
import { HEADING_RATIO, MAX_HEADING_WORDS, inMarginBand, sizeKey, type DocumentProfile } from './profile.js';
import { rowTextOf } from './rows.js';

/** What the Info dictionary (or, failing that, the XMP packet) says about the document. */
export interface PdfInfo {
  title: string | null;
  author: string | null;
  extra: Record<string, string>;
}

/** Reads the document information; a broken Info dictionary is not worth failing the parse for. */
export async function readInfo(doc: PdfDocument, pdfjs: PdfjsModule): Promise<PdfInfo> {
  let info: Record<string, unknown> = {};
  let xmp: { get(name: string): unknown } | null = null;
  try {
    const result = await doc.getMetadata();
    if (typeof result.info === 'object' && result.info !== null)
      info = result.info as Record<string, unknown>;
    const metadata: unknown = result.metadata;
    if (
      typeof metadata === 'object' &&
      metadata !== null &&
      'get' in metadata &&
      typeof metadata.get === 'function'
    ) {
      xmp = metadata as { get(name: string): unknown };
    }
  } catch {
    return { title: null, author: null, extra: {} };
  }
  const field = (name: string): string | null => text(info[name]);
  const fromXmp = (name: string): string | null => (xmp ? text(xmp.get(name)) : null);
  const extra: Record<string, string> = {};
  const put = (key: string, value: string | null): void => {
    if (value !== null) extra[key] = value;
  };
  put('subject', field('Subject') ?? fromXmp('dc:description'));
  put('keywords', field('Keywords'));
  put('creator', field('Creator'));
  put('producer', field('Producer'));
  put('created', date(field('CreationDate'), pdfjs));
  put('modified', date(field('ModDate'), pdfjs));
  put('pdfVersion', field('PDFFormatVersion'));
  return {
    title: field('Title') ?? fromXmp('dc:title'),
    author: field('Author') ?? fromXmp('dc:creator'),
    extra,
  };
}

function text(value: unknown): string | null {
  const raw = Array.isArray(value) ? value.filter((item) => typeof item === 'string').join(', ') : value;
  if (typeof raw !== 'string') return null;
  // Producers pad with NULs or whitespace, or write "untitled" placeholders.
  const cleaned = raw.replace(/\0/g, '').replace(/\s+/g, ' ').trim();
  return cleaned === '' || /^untitled$/i.test(cleaned) ? null : cleaned;
}

function date(value: string | null, pdfjs: PdfjsModule): string | null {
  if (value === null) return null;
  const parsed = pdfjs.PDFDateString.toDateObject(value);
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed.toISOString() : value;
}

export function buildMetadata(info: PdfInfo, title: string, numPages: number): DocumentMetadata {
  return { title, author: info.author, numPages, language: null, extra: { ...info.extra } };
}

export function fileTitle(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return base.replace(/\.[^.]+$/, '') || base;
}

/**
 * The first heading-sized line of the pages read so far, used as the title before the pages are laid
 * out (incremental parsing announces metadata first). The full parse uses its first heading block.
 */
export function guessFirstHeading(pages: readonly PageText[], profile: DocumentProfile): string | null {
  for (const page of [...pages].sort((a, b) => a.number - b.number)) {
    for (const row of page.rows) {
      const line = rowTextOf(row);
      if (inMarginBand(row.y, page.height) && profile.isRepeatedMarginLine(line, row.y, page.height))
        continue;
      const large = sizeKey(row.size) >= profile.bodySize * HEADING_RATIO;
      if (large && line.split(' ').length <= MAX_HEADING_WORDS && /\p{L}/u.test(line)) return line;
    }
  }
  return null;
}
