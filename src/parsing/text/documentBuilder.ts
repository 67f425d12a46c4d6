import { checkpoint, throwIfAborted } from '../abort.js';
import type { ParseContext } from '../context.js';
import { baseName, titleFromFileName as fileTitle } from '../fileName.js';
import { titleFromBlocks } from '../documentTitle.js';
import { looksDecorative } from './decorativeImages.js';
import { ParseError } from '../errors.js';
import type { Block, Extension, Image, ParsedDocument } from '../model.js';

/** An image as a text parser finds it; the builder numbers it and fills the Describer's fields. */
export interface FoundImage {
  data: Uint8Array | null;
  format: string | null;
  width: number | null;
  height: number | null;
  altText: string | null;
  /** Where the document points for it (`src`), when it names a place. */
  source?: string | null;
  /** Known to decorate (one of a row of images with no text between them, as badges come). */
  decorative?: boolean;
}

/** Metadata a text format may carry; whatever is missing gets the model's defaults. */
export interface FoundMetadata {
  title?: string | null;
  author?: string | null;
  extra?: Record<string, string | number | boolean>;
}

/**
 * Collects blocks in reading order for one document: numbers tables and images, drops empty
 * text, enforces `maxTextChars` as text arrives (not after a huge document is built) and
 * notices an abort. Every text parser goes through it, so the limits hold the same way for all.
 */
export interface DocumentBuilder {
  /** Blocks added from now on land on the next page (pages are 1-based; the first is open at the start). */
  startPage(): void;
  heading(text: string, level: number): void;
  paragraph(text: string, preformatted?: boolean): void;
  list(items: string[], ordered: boolean): void;
  table(cells: string[][], hasHeader: boolean, caption?: string | null): void;
  image(image: FoundImage): void;
  warn(message: string): void;
  /** Throws `aborted` if the caller went away, after letting pending I/O (a disconnect) run. */
  checkpoint(): Promise<void>;
  finish(metadata: FoundMetadata): ParsedDocument;
}

export function createDocumentBuilder(ctx: ParseContext, format: Extension): DocumentBuilder {
  const blocks: Block[] = [];
  const warnings: string[] = [];
  let page = 1;
  let chars = 0;
  let tableCount = 0;
  let imageCount = 0;

  const count = (text: string): void => {
    chars += text.length;
    if (chars > ctx.limits.maxTextChars) {
      throw new ParseError(
        'too_large',
        `${ctx.fileName}: more than ${ctx.limits.maxTextChars} characters of text (maxTextChars)`,
      );
    }
    if ((blocks.length & 0x3ff) === 0) throwIfAborted(ctx.signal);
  };

  return {
    startPage() {
      if (page >= ctx.limits.maxPages) {
        throw new ParseError(
          'too_large',
          `${ctx.fileName}: more than ${ctx.limits.maxPages} pages (maxPages)`,
        );
      }
      page += 1;
    },
    heading(text, level) {
      const clean = text.trim();
      if (!clean) return;
      count(clean);
      blocks.push({ type: 'heading', text: clean, level: Math.min(6, Math.max(1, level)), page });
    },
    paragraph(text, preformatted = false) {
      const clean = preformatted ? text.replace(/^\n+|\s+$/g, '') : text.trim();
      if (!clean.trim()) return;
      count(clean);
      blocks.push(
        preformatted
          ? { type: 'paragraph', text: clean, page, preformatted: true }
          : { type: 'paragraph', text: clean, page },
      );
    },
    list(items, ordered) {
      const kept = items.filter((item) => item.trim() !== '');
      if (kept.length === 0) return;
      for (const item of kept) count(item);
      blocks.push({ type: 'list', items: kept, ordered, page });
    },
    table(cells, hasHeader, caption = null) {
      const width = cells.reduce((widest, row) => Math.max(widest, row.length), 0);
      if (width === 0 || cells.length === 0) return;
      if (cells.length * width > ctx.limits.maxCells) {
        throw new ParseError(
          'too_large',
          `${ctx.fileName}: a table of ${cells.length} × ${width} cells exceeds maxCells`,
        );
      }
      const rows = cells.map((row) =>
        row.length === width ? row : [...row, ...Array<string>(width - row.length).fill('')],
      );
      for (const row of rows) for (const cell of row) count(cell);
      const index = tableCount;
      tableCount += 1;
      blocks.push({
        type: 'table',
        table: { index, pageNumber: page, cells: rows, hasHeader, caption },
        page,
      });
    },
    image(found) {
      const image: Image = {
        index: imageCount,
        pageNumber: page,
        description: '',
        format: found.format,
        width: found.width,
        height: found.height,
        altText: found.altText?.trim() || null,
        ocrText: null,
        kind: found.decorative || looksDecorative(found) ? 'decoration' : 'unknown',
        data: found.data,
      };
      imageCount += 1;
      if (image.altText) count(image.altText);
      blocks.push({ type: 'image', image, page });
    },
    warn(message) {
      if (warnings.length < 100) warnings.push(message);
    },
    checkpoint: () => checkpoint(ctx.signal),
    finish(metadata) {
      if (blocks.length === 0) {
        throw new ParseError('empty_document', `${ctx.fileName} has no text content`);
      }
      const title = metadata.title?.trim() || titleFromBlocks(blocks) || titleFromFileName(ctx.fileName);
      return {
        format,
        sourceFile: baseName(ctx.fileName),
        metadata: {
          title,
          author: metadata.author?.trim() || null,
          numPages: page,
          language: null,
          extra: metadata.extra ?? {},
        },
        pages: Array.from({ length: page }, (_, i) => ({
          number: i + 1,
          hasTextLayer: true,
          ocr: 'not_needed' as const,
          note: null,
        })),
        blocks,
        warnings,
      };
    },
  };
}

/** `docs/Report.final.md` → `Report.final`; "Untitled" when nothing is left of the name. */
export function titleFromFileName(fileName: string): string {
  return fileTitle(fileName) || 'Untitled';
}
