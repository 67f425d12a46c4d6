import sharp, { type Metadata, type Sharp, type SharpOptions } from 'sharp';
import { ParseError } from '../errors.js';
import { decodeBmp, looksLikeBmp, readBmpSize } from './bmp.js';

/** Raster formats Archivist reads (sharp names, plus BMP which it decodes itself). */
export type ImageFormat = 'png' | 'jpeg' | 'tiff' | 'bmp';

/**
 * Largest image accepted, in pixels (64 MP: a 50 MP phone photo fits, 8000×8000 is the limit).
 * Decoded RGB at this size is ~190 MB, which is what a single upload may reasonably cost; the
 * header is checked against it before any pixel is decoded, so a 50,000×50,000 PNG costs nothing.
 */
export const MAX_IMAGE_PIXELS = 64_000_000;

/** Magic numbers of the formats above, and of the ones a mislabelled upload most often is. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | null {
  const starts = (...magic: number[]): boolean => magic.every((byte, index) => bytes[index] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'png';
  if (starts(0xff, 0xd8, 0xff)) return 'jpeg';
  if (starts(0x49, 0x49, 0x2a, 0x00) || starts(0x4d, 0x4d, 0x00, 0x2a)) return 'tiff';
  if (starts(0x49, 0x49, 0x2b, 0x00) || starts(0x4d, 0x4d, 0x00, 0x2b)) return 'tiff';
  if (looksLikeBmp(bytes)) return 'bmp';
  return null;
}

export interface ImageInfo {
  format: ImageFormat;
  /** Size of the first page, EXIF orientation applied. */
  width: number;
  height: number;
  /** Pages (multi-page TIFF), 1 otherwise. */
  pages: number;
  /** Pixels per inch when the file records it. */
  density: number | null;
}

/** What sharp is told for every untrusted image: fail on broken data, never decode past the limit. */
function inputOptions(maxPixels: number, page?: number): SharpOptions {
  return {
    failOn: 'error',
    limitInputPixels: maxPixels,
    autoOrient: true,
    ...(page === undefined ? {} : { page, pages: 1 }),
  };
}

/**
 * Reads format, size and page count from the header only. Rejects a pixel bomb as `too_large` and
 * anything sharp cannot make sense of as `corrupt_document`.
 */
export async function readImageInfo(
  bytes: Uint8Array,
  format: ImageFormat,
  maxPixels = MAX_IMAGE_PIXELS,
): Promise<ImageInfo> {
  if (format === 'bmp') {
    const { width, height } = readBmpSize(bytes);
    assertPixels(width, height, maxPixels, format);
    return { format, width, height, pages: 1, density: null };
  }
  let metadata: Metadata;
  try {
    // Only the header is read; the pixel limit is checked below with a clearer message than sharp's.
    metadata = await sharp(bytes, { failOn: 'error', limitInputPixels: false }).metadata();
  } catch (error) {
    throw imageFailure(format, error);
  }
  const width = metadata.autoOrient?.width ?? metadata.width;
  const height = metadata.autoOrient?.height ?? metadata.height;
  if (!width || !height) throw new ParseError('corrupt_document', `${label(format)} image has no pixels`);
  assertPixels(width, height, maxPixels, format);
  const density = metadata.density && metadata.density > 1 ? metadata.density : null;
  return { format, width, height, pages: Math.max(1, metadata.pages ?? 1), density };
}

/**
 * A sharp pipeline over one page of the image, EXIF orientation applied. BMP is decoded here into
 * raw pixels first. Errors surface when the pipeline runs: wrap them with `imageFailure`.
 */
export function openImage(
  bytes: Uint8Array,
  format: ImageFormat,
  options: { page?: number; maxPixels?: number } = {},
): Sharp {
  const maxPixels = options.maxPixels ?? MAX_IMAGE_PIXELS;
  if (format === 'bmp') {
    const raw = decodeBmp(bytes, maxPixels);
    return sharp(raw.data, {
      raw: { width: raw.width, height: raw.height, channels: raw.channels },
      limitInputPixels: maxPixels,
    });
  }
  return sharp(bytes, inputOptions(maxPixels, format === 'tiff' ? options.page : undefined));
}

/** Turns an error met while decoding into the right `ParseError` (already-typed errors pass through). */
export function imageFailure(format: ImageFormat | null, error: unknown): ParseError {
  if (error instanceof ParseError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit|exceeds pixel/i.test(message)) {
    return new ParseError('too_large', `${label(format)} image is over the pixel limit`, { cause: error });
  }
  return corrupt(format, error);
}

function corrupt(format: ImageFormat | null, error: unknown): ParseError {
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new ParseError('corrupt_document', `${label(format)} image could not be decoded: ${message}`, {
    cause: error,
  });
}

function assertPixels(width: number, height: number, maxPixels: number, format: ImageFormat): void {
  if (width * height > maxPixels) {
    throw new ParseError(
      'too_large',
      `${label(format)} image of ${width}×${height} px is over the limit of ${maxPixels} pixels`,
    );
  }
}

function label(format: ImageFormat | null): string {
  if (format === null) return 'the';
  return format === 'jpeg' ? 'JPEG' : format.toUpperCase();
}
