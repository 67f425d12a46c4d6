import type { Block, Image, Page } from '../model.js';
import type { ParseContext } from '../context.js';
import { boxArea, clipBox, type Box, type Matrix } from './geometry.js';
import { readGraphics, type PageGraphics } from './graphics.js';
import { layoutPage, type PlacedImage } from './pageLayout.js';
import { encodePng, fingerprint, loadRawImage } from './pageImages.js';
import type { PageText } from './pageText.js';
import type { TextRun } from './textRun.js';
import type { PdfjsModule, PdfPage } from './pdfjs.js';
import { inMarginBand, type DocumentProfile } from './profile.js';
import { isScannedPage, readScannedPage, type DecodedImage } from './scannedPage.js';

/** Images smaller than this (pixels, either side) are icons, bullets or spacers. */
const MIN_IMAGE_SIDE = 32;
/** An image covering this much of a page that has text is a background (or a scan under its OCR layer). */
const BACKGROUND_COVER = 0.85;
/** Images in the header/footer band narrower than this share of the page are decorations. */
const MARGIN_IMAGE_WIDTH = 0.25;

/** Document-wide state the pages share: which images were seen where. */
export interface ImageRegistry {
  /** Pages each image fingerprint was painted on. */
  pagesByFingerprint: Map<string, Set<number>>;
  fingerprintOf: Map<Image, string>;
}

/** Characters laid out so far, and how many of them were in a typewriter face. */
export interface TypewriterTally {
  chars: number;
  typed: number;
}

/**
 * A document with more of its characters in a typewriter face than this is typed throughout (a
 * Courier-only text): there the face sets no program text apart.
 */
const TYPEWRITER_DOCUMENT = 0.9;

export interface ParsedPage {
  page: Page;
  blocks: Block[];
  warnings: string[];
}

/**
 * Parses one page: operator list (images, rulings), fonts (weight), scanned-page detection and OCR,
 * image extraction, then the text layout. `text` is the page's text layer, read beforehand so the
 * document profile could include it.
 */
export async function parsePage(
  page: PdfPage,
  text: PageText,
  profile: DocumentProfile,
  ctx: ParseContext,
  pdfjs: PdfjsModule,
  registry: ImageRegistry,
  typewriter: TypewriterTally,
): Promise<ParsedPage> {
  const number = text.number;
  const viewport = page.getViewport({ scale: 1 });
  const warnings: string[] = [];
  let graphics: PageGraphics = { images: [], rulings: [] };
  try {
    const ops = await page.getOperatorList({ annotationMode: pdfjs.AnnotationMode.DISABLE });
    graphics = readGraphics(
      ops,
      viewport.transform as Matrix,
      pdfjs.OPS,
      ctx.options.tableMode === 'accurate',
    );
  } catch (error) {
    // The text layer was read; a page whose drawing cannot be followed still gives its text.
    if (ctx.signal.aborted) throw error;
    warnings.push(
      `the graphics of page ${number} could not be read (no images or ruled tables): ${reason(error)}`,
    );
  }
  const pageBox: Box = { x0: 0, y0: 0, x1: text.width, y1: text.height };
  const pageArea = boxArea(pageBox);

  const decoded: DecodedImage[] = [];
  for (const placement of graphics.images) {
    const box = clipBox(placement.box, pageBox);
    if (boxArea(box) <= 0) continue;
    const raw = await loadRawImage(page, placement, ctx.signal);
    if (raw) decoded.push({ box, raw });
    else warnings.push(`an image on page ${number} could not be decoded`);
  }

  if (isScannedPage(text.chars, decoded, pageArea)) {
    const scanned = await readScannedPage(number, decoded, pageArea, ctx);
    return {
      page: scanned.page,
      blocks: scanned.blocks,
      warnings: scanned.warning ? [...warnings, scanned.warning] : warnings,
    };
  }

  const images: PlacedImage[] = [];
  const seenHere = new Set<string>();
  for (const { box, raw } of decoded) {
    if (raw.width < MIN_IMAGE_SIDE || raw.height < MIN_IMAGE_SIDE) continue;
    if (boxArea(box) >= BACKGROUND_COVER * pageArea || isMarginDecoration(box, text)) continue;
    const key = fingerprint(raw);
    const pages = registry.pagesByFingerprint.get(key) ?? new Set<number>();
    const repeated = seenHere.has(key) || [...pages].some((other) => other !== number);
    pages.add(number);
    registry.pagesByFingerprint.set(key, pages);
    seenHere.add(key);
    // A repeated image (a logo in the page header) is kept only where it first appears.
    if (repeated) continue;
    const image: Image = {
      index: 0,
      pageNumber: number,
      description: '',
      format: 'png',
      width: raw.width,
      height: raw.height,
      altText: null,
      ocrText: null,
      kind: 'unknown',
      data: null,
    };
    try {
      image.data = await encodePng(raw);
    } catch (error) {
      warnings.push(`an image on page ${number} could not be encoded: ${reason(error)}`);
      continue;
    }
    registry.fingerprintOf.set(image, key);
    images.push({ box, image });
  }

  const monospaceFonts = fontIdsNamed(page, text.runs, MONOSPACE_NAME);
  for (const run of text.runs) {
    const chars = run.text.replace(/\s+/g, '').length;
    typewriter.chars += chars;
    if (monospaceFonts.has(run.fontId)) typewriter.typed += chars;
  }
  const blocks = layoutPage({
    text,
    profile,
    boldFonts: fontIdsNamed(page, text.runs, BOLD_NAME),
    monospaceFonts,
    typewriterStandsOut: typewriter.typed <= TYPEWRITER_DOCUMENT * typewriter.chars,
    tableMode: ctx.options.tableMode,
    rulings: graphics.rulings,
    images,
  });
  return { page: { number, hasTextLayer: true, ocr: 'not_needed', note: null }, blocks, warnings };
}

/** A small image entirely inside the running header/footer band: a logo or an ornament. */
function isMarginDecoration(box: Box, page: PageText): boolean {
  const small = box.x1 - box.x0 < MARGIN_IMAGE_WIDTH * page.width;
  return (
    small && inMarginBand(box.y0, page.height) && inMarginBand(box.y1, page.height) && sameBand(box, page)
  );
}

function sameBand(box: Box, page: PageText): boolean {
  return box.y0 < page.height / 2 === box.y1 < page.height / 2;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const BOLD_NAME = /bold|black|heavy|semibold|demi|[-,]bd$|extrab|ultrab/i;
/** Typewriter faces: Courier, the TeX typewriter fonts (CMTT, SFTT, LMMono), Nimbus Mono, "…Mono". */
const MONOSPACE_NAME = /courier|mono|nimbusmon|typewriter|cmtt|sftt|lmtt|consolas|menlo/i;

/** Fonts of the page whose PostScript name matches; names are known once the operator list loaded the fonts. */
function fontIdsNamed(page: PdfPage, runs: readonly TextRun[], name: RegExp): Set<string> {
  const ids = new Set<string>();
  for (const id of new Set(runs.map((run) => run.fontId))) {
    if (!page.commonObjs.has(id)) continue;
    const font: unknown = page.commonObjs.get(id);
    const fontName = typeof font === 'object' && font !== null && 'name' in font ? font.name : null;
    if (typeof fontName === 'string' && name.test(fontName)) ids.add(id);
  }
  return ids;
}
