import { extname } from 'node:path';
import { OCR_LANGUAGES, type ParseContext } from '../context.js';
import { ParseError } from '../errors.js';
import { titleFromFileName } from '../fileName.js';
import {
  numberBlocks,
  type Block,
  type Extension,
  type Image,
  type Page,
  type ParsedDocument,
} from '../model.js';
import { isStop, throwIfAborted } from '../abort.js';
import {
  imageFailure,
  openImage,
  readImageInfo,
  sniffImageFormat,
  type ImageFormat,
  type ImageInfo,
} from './imageInput.js';
import { mapLimit } from '../../mapLimit.js';
import { ocrAppliedPage, ocrFailure, ocrParagraphs } from './ocrParagraphs.js';
import { foreignType } from './foreignType.js';

/** Long side of the copy kept for describing (vision models downscale further anyway). */
const DESCRIBE_MAX_SIDE = 2000;
/** Pages of a multi-page TIFF in flight at once: the OCR pool has about as many workers. */
const PAGE_CONCURRENCY = 2;

const EXPECTED_FORMAT: Record<string, ImageFormat> = {
  '.png': 'png',
  '.jpg': 'jpeg',
  '.jpeg': 'jpeg',
  '.tif': 'tiff',
  '.tiff': 'tiff',
  '.bmp': 'bmp',
};

const EXTENSION_OF: Record<ImageFormat, Extension> = {
  png: '.png',
  jpeg: '.jpg',
  tiff: '.tiff',
  bmp: '.bmp',
};

interface PageResult {
  page: Page;
  blocks: Block[];
  warning: string | null;
}

/**
 * Parses a raster image (.png .jpg .jpeg .tiff .tif .bmp): one page per image (per page of a
 * multi-page TIFF), each with one image block (format, size, PNG copy for the describing stage, OCR
 * text) followed by the OCR text as paragraphs. Images are always OCR'd, in every language of `OCR_LANGUAGES`.
 *
 * Errors: empty input `empty_document`; bytes of another type than the name says `format_mismatch`;
 * undecodable or truncated data `corrupt_document`; a pixel bomb or too many pages `too_large`. An
 * OCR failure other than abort/timeout leaves the page with `ocr: 'failed'` and a warning.
 */
export async function parseImage(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  throwIfAborted(ctx.signal);
  if (bytes.length === 0) throw new ParseError('empty_document', `${ctx.fileName} is empty`);
  if (bytes.length > ctx.limits.maxInputBytes) {
    throw new ParseError('too_large', `${ctx.fileName} is over ${ctx.limits.maxInputBytes} bytes`);
  }
  const extension = extname(ctx.fileName).toLowerCase();
  const format = detectFormat(bytes, extension, ctx.fileName);
  const info = await readImageInfo(bytes, format);
  if (info.pages > ctx.limits.maxPages) {
    throw new ParseError(
      'too_large',
      `TIFF of ${info.pages} pages is over the limit of ${ctx.limits.maxPages}`,
    );
  }

  const pageIndexes = Array.from({ length: info.pages }, (_, index) => index);
  let textChars = 0;
  const results = await mapLimit(pageIndexes, PAGE_CONCURRENCY, async (index) => {
    const result = await readPage(bytes, info, index, ctx);
    textChars += result.blocks.reduce(
      (sum, block) => sum + (block.type === 'paragraph' ? block.text.length : 0),
      0,
    );
    if (textChars > ctx.limits.maxTextChars) {
      throw new ParseError('too_large', `text found by OCR is over ${ctx.limits.maxTextChars} characters`);
    }
    return result;
  });

  const blocks = results.flatMap((result) => result.blocks);
  numberBlocks(blocks);
  return {
    format: extension in EXPECTED_FORMAT ? (extension as Extension) : EXTENSION_OF[format],
    sourceFile: ctx.fileName,
    metadata: {
      title: titleFromFileName(ctx.fileName),
      author: null,
      numPages: info.pages,
      language: null,
      extra: {
        imageFormat: format,
        width: info.width,
        height: info.height,
        ...(info.density === null ? {} : { density: info.density }),
      },
    },
    pages: results.map((result) => result.page),
    blocks,
    warnings: results.flatMap((result) => (result.warning ? [result.warning] : [])),
  };
}

async function readPage(
  bytes: Uint8Array,
  info: ImageInfo,
  index: number,
  ctx: ParseContext,
): Promise<PageResult> {
  throwIfAborted(ctx.signal);
  const number = index + 1;
  const { format } = info;
  const multiPage = info.pages > 1;
  let width = info.width;
  let height = info.height;
  let preview: Buffer;
  let ocrInput: Uint8Array;
  try {
    // One pipeline per page, cloned for each output: a BMP is decoded (by us, in JavaScript) once.
    const source = openImage(bytes, format, { page: index });
    if (multiPage) {
      const metadata = await source.metadata();
      width = metadata.autoOrient?.width ?? metadata.width;
      height = metadata.autoOrient?.height ?? metadata.height;
    }
    // Decoding the preview also proves the pixel data is whole (a truncated file fails here).
    preview = await source
      .clone()
      .resize({
        width: DESCRIBE_MAX_SIDE,
        height: DESCRIBE_MAX_SIDE,
        fit: 'inside',
        withoutEnlargement: true,
      })
      .png()
      .toBuffer();
    // The OCR engine takes encoded images and reads only the first page: give it this page alone.
    ocrInput =
      multiPage || format === 'bmp' ? await source.clone().png({ compressionLevel: 1 }).toBuffer() : bytes;
  } catch (error) {
    throw imageFailure(format, error);
  }
  throwIfAborted(ctx.signal);

  const image: Image = {
    index,
    pageNumber: number,
    description: '',
    format,
    width,
    height,
    altText: null,
    ocrText: null,
    kind: 'unknown',
    data: new Uint8Array(preview),
  };
  const imageBlock: Block = { type: 'image', image, page: number };
  try {
    const result = await ctx.ocr.recognize(ocrInput, { languages: OCR_LANGUAGES, signal: ctx.signal });
    const paragraphs = ocrParagraphs(result.text, number);
    // '' (not null) records that OCR ran and found nothing, so the describing stage does not rerun it.
    image.ocrText = result.text;
    return { page: ocrAppliedPage(number, paragraphs), blocks: [imageBlock, ...paragraphs], warning: null };
  } catch (error) {
    if (isStop(error, ctx.signal)) throw error;
    return { ...ocrFailure(number, error), blocks: [imageBlock] };
  }
}

/**
 * The format the bytes really have, checked against the name: an image named for another image
 * format, or a text/PDF/ZIP file named as an image, is a `format_mismatch`; unknown binary bytes
 * under an image name are a `corrupt_document`.
 */
function detectFormat(bytes: Uint8Array, extension: string, fileName: string): ImageFormat {
  const detected = sniffImageFormat(bytes);
  const expected = EXPECTED_FORMAT[extension];
  if (detected) {
    if (expected && expected !== detected) {
      throw new ParseError(
        'format_mismatch',
        `${fileName} is named ${extension} but holds a ${detected.toUpperCase()} image`,
      );
    }
    return detected;
  }
  const other = foreignType(bytes);
  if (other) {
    throw new ParseError(
      'format_mismatch',
      `${fileName} is named ${extension || 'as an image'} but holds ${other}`,
    );
  }
  throw new ParseError('corrupt_document', `${fileName} is not a readable PNG, JPEG, TIFF or BMP image`);
}
