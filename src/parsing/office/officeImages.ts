import sharp from 'sharp';
import type { Block, Image } from '../model.js';
import type { OfficePackage } from './officePackage.js';

/** Where a picture sits in the document, before its bytes are read. */
export interface ImageRef {
  /** Part name of the media file (`word/media/image1.png`). */
  part: string;
  altText: string | null;
  page: number;
}

interface LoadedImage {
  format: string | null;
  width: number | null;
  height: number | null;
  data: Uint8Array | null;
}

export interface ImageLoader {
  /** Turns a reference into an image block; `null` (with a warning) when the media part is missing. */
  toBlock(ref: ImageRef): Promise<Block | null>;
}

/**
 * Reads media parts through the package's safe ZIP (each part once, however often it is used) and
 * measures them with sharp. Formats sharp cannot read (EMF, WMF…) keep their extension as format and
 * no pixels, with a warning; BMP is measured from its header since sharp has no BMP decoder.
 */
export function createImageLoader(pkg: Pick<OfficePackage, 'zip'>, warnings: string[]): ImageLoader {
  const cache = new Map<string, Promise<LoadedImage | null>>();

  async function load(part: string): Promise<LoadedImage | null> {
    const data = await pkg.zip.read(part);
    if (!data) {
      warnings.push(`image ${part} is referenced but missing from the package`);
      return null;
    }
    try {
      const meta = await sharp(data, { failOn: 'none' }).metadata();
      return { format: meta.format ?? null, width: meta.width ?? null, height: meta.height ?? null, data };
    } catch {
      const bmp = bmpSize(data);
      if (bmp) return { format: 'bmp', ...bmp, data };
      const extension = part.slice(part.lastIndexOf('.') + 1).toLowerCase() || null;
      warnings.push(
        `image ${part} (${extension ?? 'unknown format'}) cannot be decoded; kept without pixels`,
      );
      return { format: extension, width: null, height: null, data: null };
    }
  }

  return {
    async toBlock(ref) {
      let pending = cache.get(ref.part);
      if (!pending) {
        pending = load(ref.part);
        cache.set(ref.part, pending);
      }
      const loaded = await pending;
      if (!loaded) return null;
      const image: Image = {
        index: 0,
        pageNumber: ref.page,
        description: '',
        format: loaded.format,
        width: loaded.width,
        height: loaded.height,
        altText: ref.altText,
        ocrText: null,
        kind: 'unknown',
        data: loaded.data,
      };
      return { type: 'image', image, page: ref.page };
    },
  };
}

function bmpSize(data: Buffer): { width: number; height: number } | null {
  if (data.length < 26 || data[0] !== 0x42 || data[1] !== 0x4d) return null;
  const width = data.readInt32LE(18);
  const height = Math.abs(data.readInt32LE(22));
  return width > 0 && height > 0 ? { width, height } : null;
}

/** Alt text as the document carries it: description first, then title; blank is null. */
export function altTextOf(...candidates: (string | undefined)[]): string | null {
  for (const candidate of candidates) {
    const text = candidate?.replace(/\s+/g, ' ').trim();
    if (text) return text;
  }
  return null;
}
