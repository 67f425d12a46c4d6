import type { ParseContext } from '../context.js';
import { levelsFromSectionNumbers } from '../headingNumbers.js';
import { ParseError } from '../errors.js';
import {
  numberBlocks,
  type Block,
  type DocumentMetadata,
  type Page,
  type ParseProgress,
  type ParsedDocument,
} from '../model.js';
import { assertNoDecompressionBomb } from './bombCheck.js';
import { buildMetadata, fileTitle, guessFirstHeading, readInfo } from './metadata.js';
import { openPdf, toParseError } from './openPdf.js';
import { checkpoint, throwIfAborted } from '../abort.js';
import { parsePage, type ImageRegistry, type ParsedPage, type TypewriterTally } from './parsePage.js';
import { readPageText, type PageText } from './pageText.js';
import { createProfileBuilder } from './profile.js';

/**
 * Pages whose text the incremental parser reads ahead of the page it lays out, so that heading sizes
 * and running headers are known from more than one page before the first page goes out.
 */
export const INCREMENTAL_LOOKAHEAD = 3;

/**
 * `parsePdf` reads this many pages ahead (all of a shorter document) before laying out the first one:
 * enough for reliable statistics, while a 5,000-page document does not hold every page's text at once.
 */
export const FULL_PROFILE_PAGES = 100;

/**
 * Parses a PDF page by page: a `metadata` item as soon as the document is open (its title is the
 * Info title, else the first heading-sized line of the first pages, else the file name), then one
 * `page` item per page, in order, as soon as that page is done.
 *
 * Font statistics (body size, heading sizes) and running headers/footers come from the pages read so
 * far plus {@link INCREMENTAL_LOOKAHEAD} pages ahead, so they can differ slightly from `parsePdf`'s,
 * which sees up to {@link FULL_PROFILE_PAGES} pages first: a heading size first used late can shift
 * later heading levels, and a logo repeated on several pages is kept where it first appears. An empty
 * document is reported (`empty_document`) after its last page. Stopping the iteration early frees the
 * document.
 */
export async function* parsePdfIncremental(
  bytes: Uint8Array,
  ctx: ParseContext,
): AsyncGenerator<ParseProgress> {
  yield* parsePages(bytes, ctx, newRun(INCREMENTAL_LOOKAHEAD));
}

/**
 * Parses a whole PDF: headings (by font size and weight), paragraphs, lists, tables, images and
 * scanned pages (OCR'd when `ctx.options.enableOcr`). Statistics come from the first
 * {@link FULL_PROFILE_PAGES} pages (every page of most documents) and grow as later pages are read;
 * images repeated on several pages are dropped. Every failure is a `ParseError`.
 */
export async function parsePdf(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const run = newRun(FULL_PROFILE_PAGES);
  const { registry } = run;
  let metadata: DocumentMetadata | null = null;
  const pages: Page[] = [];
  let blocks: Block[] = [];
  for await (const item of parsePages(bytes, ctx, run)) {
    if (item.type === 'metadata') metadata = item.metadata;
    else {
      pages.push(item.page);
      blocks.push(...item.blocks);
      ctx.onPage?.(item.page.number, item.totalPages);
    }
  }
  if (!metadata) throw new ParseError('corrupt_document', 'The PDF produced no metadata');

  // Seen on several pages: a logo or a decoration, not content.
  blocks = blocks.filter((block) => {
    if (block.type !== 'image') return true;
    const key = registry.fingerprintOf.get(block.image);
    return key === undefined || (registry.pagesByFingerprint.get(key)?.size ?? 0) < 2;
  });
  numberBlocks(blocks);

  if (run.titleFromHeading) {
    const heading = blocks.find((block) => block.type === 'heading');
    metadata.title = heading?.type === 'heading' ? heading.text : fileTitle(ctx.fileName);
  }
  return { format: '.pdf', sourceFile: ctx.fileName, metadata, pages, blocks, warnings: run.warnings };
}

/** State of one parse shared by its pages, and what `parsePdf` needs to finish the document. */
interface PdfRun {
  lookahead: number;
  registry: ImageRegistry;
  typewriter: TypewriterTally;
  warnings: string[];
  /** The document has no title of its own: the first heading (or the file name) stands in. */
  titleFromHeading: boolean;
  tables: number;
  images: number;
}

function newRun(lookahead: number): PdfRun {
  const registry = { pagesByFingerprint: new Map(), fingerprintOf: new Map() };
  return {
    lookahead,
    registry,
    typewriter: { chars: 0, typed: 0 },
    warnings: [],
    titleFromHeading: false,
    tables: 0,
    images: 0,
  };
}

async function* parsePages(bytes: Uint8Array, ctx: ParseContext, run: PdfRun): AsyncGenerator<ParseProgress> {
  throwIfAborted(ctx.signal);
  if (bytes.length === 0) throw new ParseError('empty_document', 'The PDF file is empty');
  if (bytes.length > ctx.limits.maxInputBytes) {
    throw new ParseError('too_large', `The PDF is larger than ${ctx.limits.maxInputBytes} bytes`);
  }
  await assertNoDecompressionBomb(bytes, ctx.limits, ctx.signal);
  const { pdfjs, doc, close } = await openPdf(bytes, ctx.signal);
  try {
    const total = doc.numPages;
    if (total === 0) throw new ParseError('empty_document', 'The PDF has no pages');
    if (total > ctx.limits.maxPages) {
      throw new ParseError(
        'too_large',
        `The PDF has ${total} pages; at most ${ctx.limits.maxPages} are accepted`,
      );
    }
    const info = await readInfo(doc, pdfjs);
    const profile = createProfileBuilder();
    const texts = new Map<number, PageText>();
    let chars = 0;
    const readAhead = async (upTo: number): Promise<void> => {
      for (let n = 1; n <= Math.min(total, upTo); n++) {
        if (profile.has(n)) continue;
        throwIfAborted(ctx.signal);
        const text = await readPageText(await doc.getPage(n), n);
        chars += text.chars;
        if (chars > ctx.limits.maxTextChars) {
          throw new ParseError('too_large', `The PDF holds more than ${ctx.limits.maxTextChars} characters`);
        }
        texts.set(n, text);
        profile.add(text);
      }
    };

    await readAhead(1 + run.lookahead);
    const guessed = info.title === null ? guessFirstHeading([...texts.values()], profile.profile()) : null;
    run.titleFromHeading = info.title === null;
    const metadata = buildMetadata(info, info.title ?? guessed ?? fileTitle(ctx.fileName), total);
    yield { type: 'metadata', metadata, totalPages: total };

    let content = false;
    for (let n = 1; n <= total; n++) {
      await readAhead(n + run.lookahead);
      await checkpoint(ctx.signal);
      const text = texts.get(n);
      texts.delete(n);
      if (!text) throw new ParseError('corrupt_document', `Page ${n} of the PDF could not be read`);
      const page = await doc.getPage(n);
      let parsed: ParsedPage;
      try {
        parsed = await parsePage(page, text, profile.profile(), ctx, pdfjs, run.registry, run.typewriter);
      } finally {
        // Frees the page's decoded images and operator list before the next page.
        page.cleanup();
      }
      run.warnings.push(...parsed.warnings);
      // Font sizes do not tell "3.3 Figure size" from "3 Tutorial" when both are set alike.
      levelsFromSectionNumbers(parsed.blocks, { keepUnnumbered: true });
      for (const block of parsed.blocks) {
        if (block.type === 'table') block.table.index = run.tables++;
        if (block.type === 'image') block.image.index = run.images++;
      }
      content ||= parsed.blocks.length > 0 || !parsed.page.hasTextLayer;
      yield { type: 'page', page: parsed.page, blocks: parsed.blocks, totalPages: total };
    }
    if (!content) throw new ParseError('empty_document', 'The PDF has no text and no images');
  } catch (error) {
    throw toParseError(error, ctx.signal, 'pages');
  } finally {
    await close();
  }
}
