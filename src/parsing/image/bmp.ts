import { ParseError } from '../errors.js';

/** Raw pixels as sharp takes them (`sharp(data, { raw: { width, height, channels } })`). */
export interface RawImage {
  width: number;
  height: number;
  channels: 3 | 4;
  data: Buffer;
}

const FILE_HEADER_BYTES = 14;
/** BITMAPCOREHEADER (OS/2), BITMAPINFOHEADER, the two Adobe extensions, V4 and V5. */
const DIB_HEADER_SIZES = new Set([12, 40, 52, 56, 108, 124]);
const BI_RGB = 0;
const BI_BITFIELDS = 3;
const BI_ALPHABITFIELDS = 6;

interface Header {
  width: number;
  height: number;
  topDown: boolean;
  bitsPerPixel: number;
  compression: number;
  pixelOffset: number;
  paletteOffset: number;
  paletteEntryBytes: 3 | 4;
  colorsUsed: number;
  masks: { red: number; green: number; blue: number; alpha: number } | null;
}

/** True when the bytes start like a Windows bitmap with a header size we know. */
export function looksLikeBmp(bytes: Uint8Array): boolean {
  if (bytes.length < FILE_HEADER_BYTES + 4 || bytes[0] !== 0x42 || bytes[1] !== 0x4d) return false;
  return DIB_HEADER_SIZES.has(view(bytes).getUint32(FILE_HEADER_BYTES, true));
}

/** Width and height from the header alone, without touching pixel data (pixel-bomb checks). */
export function readBmpSize(bytes: Uint8Array): { width: number; height: number } {
  const header = readHeader(bytes);
  return { width: header.width, height: header.height };
}

/**
 * Decodes an uncompressed Windows bitmap: 1-, 4- and 8-bit paletted, 24-bit, and 32-bit (plain or
 * with bit-field masks). sharp (libvips without ImageMagick) cannot read BMP at all, and these are
 * what scanners and Paint write; RLE and 16-bit files are refused as `corrupt_document`.
 * `maxPixels` is checked against the header before anything is allocated.
 */
export function decodeBmp(bytes: Uint8Array, maxPixels: number): RawImage {
  const header = readHeader(bytes);
  const { width, height, bitsPerPixel } = header;
  if (width * height > maxPixels) {
    throw new ParseError('too_large', `BMP of ${width}×${height} px is over the ${maxPixels} pixel limit`);
  }
  const stride = Math.floor((bitsPerPixel * width + 31) / 32) * 4;
  if (header.pixelOffset + stride * height > bytes.length) {
    throw new ParseError('corrupt_document', 'BMP pixel data is truncated');
  }
  const palette = bitsPerPixel <= 8 ? readPalette(bytes, header) : null;
  const alpha = header.masks !== null && header.masks.alpha !== 0;
  const channels = alpha ? 4 : 3;
  const out = Buffer.alloc(width * height * channels);
  const data = view(bytes);

  for (let row = 0; row < height; row += 1) {
    const source = header.pixelOffset + (header.topDown ? row : height - 1 - row) * stride;
    let target = row * width * channels;
    for (let x = 0; x < width; x += 1) {
      if (palette) {
        const index = paletteIndex(bytes, source, x, bitsPerPixel);
        const colour = palette[index];
        if (!colour) throw new ParseError('corrupt_document', `BMP palette index ${index} is out of range`);
        out[target] = colour[0];
        out[target + 1] = colour[1];
        out[target + 2] = colour[2];
      } else if (bitsPerPixel === 24) {
        const at = source + x * 3;
        out[target] = bytes[at + 2] ?? 0;
        out[target + 1] = bytes[at + 1] ?? 0;
        out[target + 2] = bytes[at] ?? 0;
      } else {
        const pixel = data.getUint32(source + x * 4, true);
        const masks = header.masks ?? { red: 0xff0000, green: 0xff00, blue: 0xff, alpha: 0 };
        out[target] = channel(pixel, masks.red);
        out[target + 1] = channel(pixel, masks.green);
        out[target + 2] = channel(pixel, masks.blue);
        if (alpha) out[target + 3] = channel(pixel, masks.alpha);
      }
      target += channels;
    }
  }
  return { width, height, channels, data: out };
}

function readHeader(bytes: Uint8Array): Header {
  if (!looksLikeBmp(bytes)) throw new ParseError('corrupt_document', 'not a Windows bitmap (BMP) file');
  const data = view(bytes);
  const dibSize = data.getUint32(FILE_HEADER_BYTES, true);
  if (bytes.length < FILE_HEADER_BYTES + dibSize) {
    throw new ParseError('corrupt_document', 'BMP header is truncated');
  }
  const pixelOffset = data.getUint32(10, true);
  const core = dibSize === 12;
  const width = core ? data.getUint16(18, true) : data.getInt32(18, true);
  const rawHeight = core ? data.getInt16(20, true) : data.getInt32(22, true);
  const bitsPerPixel = data.getUint16(core ? 24 : 28, true);
  const compression = core ? BI_RGB : data.getUint32(30, true);
  const colorsUsed = core ? 0 : data.getUint32(46, true);
  const height = Math.abs(rawHeight);

  if (width <= 0 || height <= 0) throw new ParseError('corrupt_document', 'BMP has no pixels');
  if (![1, 4, 8, 24, 32].includes(bitsPerPixel)) {
    throw new ParseError(
      'corrupt_document',
      `unsupported BMP: ${bitsPerPixel}-bit pixels (1, 4, 8, 24 and 32-bit files are read)`,
    );
  }
  const bitfields = compression === BI_BITFIELDS || compression === BI_ALPHABITFIELDS;
  if (!(compression === BI_RGB || (bitfields && bitsPerPixel === 32))) {
    throw new ParseError(
      'corrupt_document',
      `unsupported BMP: compression ${compressionName(compression)} (only uncompressed files are read)`,
    );
  }
  const paletteOffset = FILE_HEADER_BYTES + dibSize + (bitfields && dibSize === 40 ? 12 : 0);
  return {
    width,
    height,
    topDown: rawHeight < 0,
    bitsPerPixel,
    compression,
    pixelOffset,
    paletteOffset,
    paletteEntryBytes: core ? 3 : 4,
    colorsUsed,
    masks: bitfields ? readMasks(data, dibSize, compression) : null,
  };
}

/** Masks follow a 40-byte header, or sit inside the larger headers at the same offsets. */
function readMasks(data: DataView, dibSize: number, compression: number): NonNullable<Header['masks']> {
  const at = FILE_HEADER_BYTES + 40;
  if (data.byteLength < at + 12) throw new ParseError('corrupt_document', 'BMP colour masks are truncated');
  const hasAlphaMask = dibSize >= 56 || compression === BI_ALPHABITFIELDS;
  return {
    red: data.getUint32(at, true),
    green: data.getUint32(at + 4, true),
    blue: data.getUint32(at + 8, true),
    alpha: hasAlphaMask && data.byteLength >= at + 16 ? data.getUint32(at + 12, true) : 0,
  };
}

function readPalette(bytes: Uint8Array, header: Header): Array<[number, number, number]> {
  const count = header.colorsUsed || 2 ** header.bitsPerPixel;
  if (count > 256) throw new ParseError('corrupt_document', `BMP palette of ${count} colours is invalid`);
  const end = header.paletteOffset + count * header.paletteEntryBytes;
  if (end > bytes.length || end > header.pixelOffset) {
    throw new ParseError('corrupt_document', 'BMP palette is truncated');
  }
  return Array.from({ length: count }, (_, index) => {
    const at = header.paletteOffset + index * header.paletteEntryBytes;
    return [bytes[at + 2] ?? 0, bytes[at + 1] ?? 0, bytes[at] ?? 0];
  });
}

function paletteIndex(bytes: Uint8Array, rowStart: number, x: number, bitsPerPixel: number): number {
  const byte = bytes[rowStart + Math.floor((x * bitsPerPixel) / 8)] ?? 0;
  if (bitsPerPixel === 8) return byte;
  const perByte = 8 / bitsPerPixel;
  const shift = (perByte - 1 - (x % perByte)) * bitsPerPixel;
  return (byte >> shift) & ((1 << bitsPerPixel) - 1);
}

/** Scales a masked field to 0–255, whatever its width (5-6-5, 8-8-8, 10-10-10). */
function channel(pixel: number, mask: number): number {
  if (mask === 0) return 0;
  let shift = 0;
  while (((mask >>> shift) & 1) === 0) shift += 1;
  const max = mask >>> shift;
  return Math.round((((pixel & mask) >>> shift) * 255) / max);
}

function compressionName(compression: number): string {
  const names: Record<number, string> = { 1: 'RLE8', 2: 'RLE4', 3: 'BITFIELDS', 4: 'JPEG', 5: 'PNG' };
  return names[compression] ?? String(compression);
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
