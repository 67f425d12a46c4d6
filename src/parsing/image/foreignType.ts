/**
 * Names what a file that is not one of our image formats most likely is, from its first bytes, for
 * a clear `format_mismatch` message. Null when the bytes are unrecognisable binary (then the file is
 * taken as a damaged image instead).
 */
export function foreignType(bytes: Uint8Array): string | null {
  const ascii = (from: number, to: number): string => String.fromCharCode(...bytes.subarray(from, to));
  if (ascii(0, 5) === '%PDF-') return 'a PDF document';
  if (ascii(0, 4) === 'PK\u0003\u0004') return 'a ZIP archive (or an Office document)';
  if (ascii(0, 4) === 'GIF8') return 'a GIF image (not supported)';
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'a WebP image (not supported)';
  if (ascii(4, 8) === 'ftyp') return 'an HEIC/AVIF image or a video (not supported)';
  if (looksLikeText(bytes.subarray(0, 4096))) return 'text';
  return null;
}

/** Valid UTF-8 without NUL or other control bytes besides tab, CR, LF and form feed. */
function looksLikeText(head: Uint8Array): boolean {
  if (head.length === 0) return false;
  let text: string;
  try {
    // A multi-byte character cut at the 4 KB boundary is not a reason to call text binary.
    text = new TextDecoder('utf-8', { fatal: true }).decode(head.length === 4096 ? trimPartial(head) : head);
  } catch {
    return false;
  }
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const allowed = code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
    if ((code < 0x20 && !allowed) || code === 0x7f) return false;
  }
  return true;
}

function trimPartial(head: Uint8Array): Uint8Array {
  let end = head.length;
  // Step back over continuation bytes (10xxxxxx) and the lead byte of the cut character.
  for (let back = 0; back < 3 && end > 0 && ((head[end - 1] ?? 0) & 0xc0) === 0x80; back += 1) end -= 1;
  if (end > 0 && ((head[end - 1] ?? 0) & 0xc0) === 0xc0) end -= 1;
  return head.subarray(0, end);
}
