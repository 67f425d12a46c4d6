/**
 * Pixel counts read from the first bytes of PNG and JPEG files, for the memory estimate: the
 * decoded image, not the file, is what costs memory. Nothing is decoded; `null` when the header
 * cannot be read (the estimate then falls back on the file size).
 */
export function imagePixels(bytes: Uint8Array): number | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isPng(bytes)) {
    if (bytes.length < 24) return null;
    return view.getUint32(16) * view.getUint32(20);
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return jpegPixels(view);
  return null;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function isPng(bytes: Uint8Array): boolean {
  return PNG_SIGNATURE.every((byte, i) => bytes[i] === byte);
}

/** Walks the JPEG markers to the first start-of-frame (SOF0–SOF15 except DHT, JPG and DAC). */
function jpegPixels(view: DataView): number | null {
  let at = 2;
  while (at + 9 <= view.byteLength) {
    if (view.getUint8(at) !== 0xff) return null;
    const marker = view.getUint8(at + 1);
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return view.getUint16(at + 5) * view.getUint16(at + 7);
    if (marker === 0xd9 || marker === 0xda) return null; // end of image or scan data before any frame
    at += 2 + view.getUint16(at + 2);
  }
  return null;
}
