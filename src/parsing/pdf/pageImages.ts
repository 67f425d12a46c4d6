import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { ImagePlacement } from './graphics.js';
import type { PdfPage } from './pdfjs.js';

/** Decoded pixels as pdf.js hands them over. */
export interface RawImage {
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  pixels: Uint8Array;
}

/** pdf.js `ImageKind` values. */
const GRAYSCALE_1BPP = 1;
const RGB_24BPP = 2;
const RGBA_32BPP = 3;

/**
 * The decoded pixels of a painted image, or null when pdf.js could not decode it (it then resolves the
 * object with null) or the data has a shape we do not know. Page-local images arrive asynchronously
 * after the operator list, hence the callback form of `objs.get`; pdf.js always resolves them.
 */
export async function loadRawImage(
  page: PdfPage,
  placement: ImagePlacement,
  signal: AbortSignal,
): Promise<RawImage | null> {
  if (placement.objId === null) return toRawImage(placement.inline);
  const id = placement.objId;
  const objs = id.startsWith('g_') ? page.commonObjs : page.objs;
  // An abort destroys the document, after which the object would never arrive: stop waiting then.
  const data = await new Promise<unknown>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('aborted while waiting for an image'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    objs.get(id, (value: unknown) => {
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    });
  });
  return toRawImage(data);
}

function toRawImage(data: unknown): RawImage | null {
  if (typeof data !== 'object' || data === null) return null;
  const { width, height, kind, data: pixels } = data as Record<string, unknown>;
  if (typeof width !== 'number' || typeof height !== 'number' || width < 1 || height < 1) return null;
  if (!(pixels instanceof Uint8Array || pixels instanceof Uint8ClampedArray)) return null;
  const bytes = new Uint8Array(pixels.buffer, pixels.byteOffset, pixels.byteLength);
  if (kind === RGBA_32BPP && bytes.length >= width * height * 4)
    return { width, height, channels: 4, pixels: bytes };
  if (kind === RGB_24BPP && bytes.length >= width * height * 3)
    return { width, height, channels: 3, pixels: bytes };
  if (kind === GRAYSCALE_1BPP) return unpackBits(bytes, width, height);
  return null;
}

/** 1-bit rows (padded to whole bytes, 1 = white) to 8-bit grey. */
function unpackBits(bits: Uint8Array, width: number, height: number): RawImage | null {
  const rowBytes = Math.ceil(width / 8);
  if (bits.length < rowBytes * height) return null;
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const byte = bits[y * rowBytes + (x >> 3)] ?? 0;
      pixels[y * width + x] = byte & (0x80 >> (x & 7)) ? 255 : 0;
    }
  }
  return { width, height, channels: 1, pixels };
}

/** Identifies identical pixels, to recognise a logo repeated on many pages. */
export function fingerprint(image: RawImage): string {
  return createHash('sha1')
    .update(`${image.width}x${image.height}x${image.channels}`)
    .update(image.pixels)
    .digest('hex');
}

/** Encodes decoded pixels as PNG (an opaque alpha channel is dropped). */
export async function encodePng(image: RawImage): Promise<Uint8Array> {
  const { width, height, channels, pixels } = image;
  let pipeline = sharp(pixels, { raw: { width, height, channels } });
  if (channels === 4 && isOpaque(pixels)) pipeline = pipeline.removeAlpha();
  const png = await pipeline.png().toBuffer();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}

function isOpaque(rgba: Uint8Array): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return false;
  return true;
}
