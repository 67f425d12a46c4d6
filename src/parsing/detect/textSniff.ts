import { byteOrderMark } from '../text/decode.js';

/** How much of the start of a file is inspected; enough to see the binary nature of real formats. */
const SAMPLE_BYTES = 64 * 1024;
/** Share of control characters above which a sample is binary (text has tabs and newlines, not these). */
const MAX_CONTROL_SHARE = 0.01;

/**
 * Whether the bytes look like text in an encoding the text parsers decode: no NUL in the sample
 * (unless the file carries a UTF-16 byte-order mark) and almost no other control characters. Every
 * byte sequence is valid in the single-byte fallback encodings, so the control characters are what
 * separate text from compressed or binary data.
 */
export function looksLikeText(bytes: Uint8Array): boolean {
  const bom = byteOrderMark(bytes);
  if (bom === 'utf-16le' || bom === 'utf-16be') return looksLikeUtf16(bytes, bom === 'utf-16le');
  const sample = bytes.subarray(0, SAMPLE_BYTES);
  let controls = 0;
  // An indexed loop: `for…of` over a typed array stays slow in the parse workers (it was their top
  // item on HTML pages).
  for (let i = 0; i < sample.length; i += 1) {
    const byte = sample[i]!;
    if (byte === 0) return false;
    if (isControl(byte)) controls += 1;
  }
  return controls <= sample.length * MAX_CONTROL_SHARE;
}

/** ASCII control characters other than tab, LF, VT, FF, CR and ESC (ANSI colours in logs). */
function isControl(byte: number): boolean {
  return (
    (byte < 0x20 &&
      byte !== 0x09 &&
      byte !== 0x0a &&
      byte !== 0x0b &&
      byte !== 0x0c &&
      byte !== 0x0d &&
      byte !== 0x1b) ||
    byte === 0x7f
  );
}

function looksLikeUtf16(bytes: Uint8Array, littleEndian: boolean): boolean {
  const end = Math.min(bytes.length - (bytes.length % 2), SAMPLE_BYTES + 2);
  let units = 0;
  let controls = 0;
  for (let i = 2; i < end; i += 2) {
    const unit = littleEndian
      ? (bytes[i] ?? 0) | ((bytes[i + 1] ?? 0) << 8)
      : ((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0);
    units += 1;
    if (unit === 0 || (unit < 0x100 && isControl(unit))) controls += 1;
  }
  return controls <= units * MAX_CONTROL_SHARE;
}
