import type { FoundImage } from './documentBuilder.js';

const FORMAT_OF_MIME: Record<string, string> = {
  'image/png': 'png',
  'image/apng': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/pjpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'image/tiff': 'tiff',
  'image/bmp': 'bmp',
  'image/x-ms-bmp': 'bmp',
  'image/avif': 'heif',
};

/**
 * An image referenced by a text document (HTML `<img>`, Markdown `![]()`, RST `.. image::`).
 * A `data:` URI is decoded here so the describing stage gets the pixels; any other source is only
 * recorded through its alt text, because parsers never fetch anything.
 */
export function imageFromSource(
  src: string | null,
  altText: string | null,
  size: { width?: number | null; height?: number | null } = {},
): FoundImage {
  const data = src ? decodeDataUri(src.trim()) : null;
  const measured = data ? measureImage(data.bytes) : null;
  return {
    data: data && data.bytes.length > 0 ? data.bytes : null,
    format: measured?.format ?? (data ? (FORMAT_OF_MIME[data.mime] ?? null) : formatFromPath(src)),
    width: measured?.width ?? size.width ?? null,
    height: measured?.height ?? size.height ?? null,
    altText,
    source: src,
  };
}

/** `data:[<mime>][;param]*[;base64],<payload>` → bytes; null for anything else. */
function decodeDataUri(uri: string): { mime: string; bytes: Uint8Array } | null {
  if (!/^data:/i.test(uri)) return null;
  const comma = uri.indexOf(',');
  if (comma < 0) return null;
  const header = uri.slice(5, comma).toLowerCase();
  const payload = uri.slice(comma + 1);
  const params = header.split(';').map((part) => part.trim());
  const mime = params[0] || 'text/plain';
  if (params.includes('base64')) {
    return { mime, bytes: new Uint8Array(Buffer.from(payload.replace(/\s+/g, ''), 'base64')) };
  }
  try {
    return { mime, bytes: new Uint8Array(Buffer.from(decodeURIComponent(payload), 'utf8')) };
  } catch {
    return { mime, bytes: new Uint8Array(Buffer.from(payload, 'latin1')) };
  }
}

/** Format and pixel size from the headers of PNG, GIF and JPEG (the common inline formats). */
function measureImage(bytes: Uint8Array): { format: string; width: number; height: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 24 && view.getUint32(0) === 0x89504e47 && view.getUint32(12) === 0x49484452) {
    return { format: 'png', width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (bytes.length >= 10 && view.getUint32(0) === 0x47494638) {
    return { format: 'gif', width: view.getUint16(6, true), height: view.getUint16(8, true) };
  }
  if (bytes.length >= 4 && view.getUint16(0) === 0xffd8) return measureJpeg(view);
  return null;
}

function measureJpeg(view: DataView): { format: string; width: number; height: number } | null {
  let position = 2;
  while (position + 9 < view.byteLength) {
    if (view.getUint8(position) !== 0xff) return null;
    const marker = view.getUint8(position + 1);
    if (marker === 0xff) {
      position += 1;
      continue;
    }
    const length = view.getUint16(position + 2);
    // SOF0–SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { format: 'jpeg', height: view.getUint16(position + 5), width: view.getUint16(position + 7) };
    }
    if (length < 2) return null;
    position += 2 + length;
  }
  return null;
}

function formatFromPath(src: string | null): string | null {
  const match = src ? /\.([a-z0-9]{2,5})(?:[?#].*)?$/i.exec(src) : null;
  const ext = match?.[1]?.toLowerCase();
  if (!ext) return null;
  const known: Record<string, string> = {
    png: 'png',
    jpg: 'jpeg',
    jpeg: 'jpeg',
    gif: 'gif',
    webp: 'webp',
    svg: 'svg',
    tif: 'tiff',
    tiff: 'tiff',
    bmp: 'bmp',
  };
  return known[ext] ?? null;
}
