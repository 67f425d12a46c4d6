/**
 * Bytes → string for every text format. Never throws: a file that is not valid in any encoding we
 * recognise still decodes (single-byte fallback), because refusing a slightly damaged text file
 * helps nobody and the detector has already ruled out binary data.
 */

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' | 'windows-1256';

export interface DecodedText {
  text: string;
  encoding: TextEncoding;
  /** True when a byte-order mark was present (and removed). */
  bom: boolean;
}

/** The byte-order mark at the start of `bytes`, if any. */
export function byteOrderMark(bytes: Uint8Array): 'utf-8' | 'utf-16le' | 'utf-16be' | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return null;
}

/**
 * Decodes UTF-8 (with or without BOM) and UTF-16 LE/BE (with BOM); anything else falls back to
 * windows-1256 when that yields Arabic words, else windows-1252. NUL characters are removed.
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  const bom = byteOrderMark(bytes);
  if (bom === 'utf-8') return done(new TextDecoder('utf-8').decode(bytes.subarray(3)), 'utf-8', true);
  if (bom === 'utf-16le' || bom === 'utf-16be') {
    return done(new TextDecoder(bom).decode(bytes.subarray(2)), bom, true);
  }
  try {
    return done(new TextDecoder('utf-8', { fatal: true }).decode(bytes), 'utf-8', false);
  } catch {
    // Not strictly valid: a truncated last character or a few damaged bytes in an otherwise UTF-8
    // file still read best as UTF-8; a legacy single-byte file has no valid multi-byte sequences.
  }
  if (isMostlyUtf8(bytes)) return done(new TextDecoder('utf-8').decode(bytes), 'utf-8', false);
  const arabic = new TextDecoder('windows-1256').decode(bytes);
  if (looksArabic(arabic)) return done(arabic, 'windows-1256', false);
  return done(new TextDecoder('windows-1252').decode(bytes), 'windows-1252', false);
}

function done(text: string, encoding: TextEncoding, bom: boolean): DecodedText {
  // A UTF-8 BOM can also sit inside a UTF-16 file or be doubled; drop a leading one in any case.
  const withoutBom = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return { text: withoutBom.includes('\0') ? withoutBom.replace(/\0/g, '') : withoutBom, encoding, bom };
}

/** Valid multi-byte sequences clearly outnumber invalid bytes (at least 20 to 1). */
function isMostlyUtf8(bytes: Uint8Array): boolean {
  let valid = 0;
  let invalid = 0;
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] ?? 0;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    const length =
      lead >= 0xc2 && lead <= 0xdf
        ? 2
        : lead >= 0xe0 && lead <= 0xef
          ? 3
          : lead >= 0xf0 && lead <= 0xf4
            ? 4
            : 0;
    let ok = length > 0;
    for (let k = 1; ok && k < length && i + k < bytes.length; k += 1)
      ok = ((bytes[i + k] ?? 0) & 0xc0) === 0x80;
    // A character cut off by the end of the file (truncated upload) is not evidence against UTF-8.
    if (ok && i + length > bytes.length) break;
    if (ok) {
      valid += 1;
      i += length;
    } else {
      invalid += 1;
      i += 1;
    }
  }
  return valid > 0 && invalid * 20 <= valid;
}

/** Most non-ASCII characters are Arabic letters that form words (runs), not isolated accents. */
function looksArabic(text: string): boolean {
  let nonAscii = 0;
  for (let i = 0; i < text.length; i += 1) if (text.charCodeAt(i) > 0x7f) nonAscii += 1;
  if (nonAscii === 0) return false;
  let inRuns = 0;
  for (const match of text.matchAll(/[\u0621-\u0652\u0660-\u0669\u067e\u0686\u0698\u06af]{2,}/g)) {
    inRuns += match[0].length;
  }
  return inRuns >= nonAscii * 0.6;
}
