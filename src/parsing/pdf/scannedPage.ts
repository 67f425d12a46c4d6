import type { Block, Page } from '../model.js';
import { OCR_LANGUAGES, type ParseContext } from '../context.js';
import { isStop } from '../abort.js';
import { ocrAppliedPage, ocrFailure, ocrParagraphs } from '../image/ocrParagraphs.js';
import { boxArea, type Box } from './geometry.js';
import { encodePng, type RawImage } from './pageImages.js';

export interface DecodedImage {
  box: Box;
  raw: RawImage;
}

/** A page with fewer visible characters than this can be a scan. */
const MAX_SCAN_CHARS = 20;
/**
 * ... when images cover at least this share of it. Scanners and scan apps fill the page; a full-page
 * figure inside 2 cm margins covers 70 % of A4 and stays a figure.
 */
const MIN_SCAN_COVER = 0.75;
/** Images smaller than this share of the page are not part of the scan (stamps, logos). */
const MIN_SCAN_PART = 0.05;

/** A page is scanned when it has (almost) no text and its area is mostly covered by images. */
export function isScannedPage(chars: number, images: readonly DecodedImage[], pageArea: number): boolean {
  if (chars >= MAX_SCAN_CHARS || pageArea <= 0) return false;
  const covered = images.reduce((sum, image) => sum + boxArea(image.box), 0);
  return covered >= MIN_SCAN_COVER * pageArea;
}

export interface ScannedPageResult {
  page: Page;
  blocks: Block[];
  warning: string | null;
}

/**
 * Reads a scanned page: with `enableOcr`, the page's images (top to bottom) go through the OCR engine
 * and their text becomes paragraphs; without it the page is reported as having no text. The scan
 * itself is not emitted as an image block: it is the page, not a figure on it.
 */
export async function readScannedPage(
  number: number,
  images: readonly DecodedImage[],
  pageArea: number,
  ctx: ParseContext,
): Promise<ScannedPageResult> {
  if (!ctx.options.enableOcr) {
    return {
      page: {
        number,
        hasTextLayer: false,
        ocr: 'skipped',
        note: `page ${number} has no text layer; set enable_ocr to read it`,
      },
      blocks: [],
      warning: null,
    };
  }
  const parts = images
    .filter((image) => boxArea(image.box) >= MIN_SCAN_PART * pageArea)
    .sort((a, b) => a.box.y0 - b.box.y0 || a.box.x0 - b.box.x0);
  const texts: string[] = [];
  try {
    for (const part of parts) {
      const png = await encodePng(part.raw);
      const result = await ctx.ocr.recognize(png, { languages: OCR_LANGUAGES, signal: ctx.signal });
      texts.push(result.text);
    }
  } catch (error) {
    if (isStop(error, ctx.signal)) throw error;
    return { ...ocrFailure(number, error), blocks: [] };
  }
  const blocks = ocrParagraphs(texts.join('\n\n'), number);
  return { page: ocrAppliedPage(number, blocks), blocks, warning: null };
}
