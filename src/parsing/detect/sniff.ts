import { fileTypeFromBuffer } from 'file-type';
import { looksLikeText } from './textSniff.js';
import { readZipDirectory } from './zipDirectory.js';

/** Binary formats Archivist parses, as families (`.jpg`/`.jpeg` are one family, and so on). */
export type BinaryFamily =
  'pdf' | 'png' | 'jpeg' | 'tiff' | 'bmp' | 'docx' | 'pptx' | 'xlsx' | 'odt' | 'ods' | 'odp';

/** What the bytes say, independent of the file name. */
export type Sniffed =
  | { kind: 'binary-format'; family: BinaryFamily }
  /** An OLE compound file holding an `EncryptedPackage`: a password-protected DOCX/PPTX/XLSX. */
  | { kind: 'encrypted-ooxml' }
  /** An OpenDocument package whose `mimetype` is not stored first, where it can be read without inflating. */
  | { kind: 'opendocument' }
  /** A ZIP whose central directory cannot be read (truncated or damaged). */
  | { kind: 'broken-zip' }
  | { kind: 'text' }
  /** Recognisably something else (a GIF, a plain ZIP, a legacy .doc…), or unrecognisable binary data. */
  | { kind: 'other'; label: string };

export const FAMILY_LABELS: Record<BinaryFamily, string> = {
  pdf: 'a PDF document',
  png: 'a PNG image',
  jpeg: 'a JPEG image',
  tiff: 'a TIFF image',
  bmp: 'a BMP image',
  docx: 'a DOCX document',
  pptx: 'a PPTX presentation',
  xlsx: 'an XLSX workbook',
  odt: 'an OpenDocument text (.odt)',
  ods: 'an OpenDocument spreadsheet (.ods)',
  odp: 'an OpenDocument presentation (.odp)',
};

/** `mimetype` values of OpenDocument packages (templates share their document's family). */
const ODF_FAMILIES: ReadonlyArray<[string, BinaryFamily]> = [
  ['application/vnd.oasis.opendocument.text', 'odt'],
  ['application/vnd.oasis.opendocument.spreadsheet', 'ods'],
  ['application/vnd.oasis.opendocument.presentation', 'odp'],
];
/** Local file header (30 bytes) + the name "mimetype": where a conforming package's media type starts. */
const ODF_MIMETYPE_OFFSET = 38;

const OOXML_MAIN_PARTS: ReadonlyArray<[string, BinaryFamily]> = [
  ['word/document.xml', 'docx'],
  ['ppt/presentation.xml', 'pptx'],
  ['xl/workbook.xml', 'xlsx'],
];
const OLE_SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** How file-type recognises the formats below (PDF, PNG, JPEG, TIFF and BigTIFF, BMP). */
const BINARY_SIGNATURES: ReadonlyArray<readonly number[]> = [
  [0x25, 0x50, 0x44, 0x46],
  [0x89, 0x50, 0x4e, 0x47],
  [0xff, 0xd8, 0xff],
  [0x49, 0x49, 0x2a, 0x00],
  [0x4d, 0x4d, 0x00, 0x2a],
  [0x49, 0x49, 0x2b, 0x00],
  [0x4d, 0x4d, 0x00, 0x2b],
  [0x42, 0x4d],
];
/** `EncryptedPackage` as UTF-16LE, the stream name of an encrypted OOXML package inside OLE. */
const ENCRYPTED_PACKAGE = Buffer.from('EncryptedPackage', 'utf16le');

/** Sniffs the type from magic numbers, the ZIP central directory (never inflated) and text-ness. */
export async function sniffBytes(bytes: Uint8Array): Promise<Sniffed> {
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06])) {
    return sniffZip(bytes);
  }
  if (startsWith(bytes, OLE_SIGNATURE)) {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(ENCRYPTED_PACKAGE)
      ? { kind: 'encrypted-ooxml' }
      : { kind: 'other', label: 'a legacy Microsoft Office (OLE2) file' };
  }

  const text = looksLikeText(bytes);
  // Text is text unless it opens with a signature of the binary formats parsed here (a PDF can be
  // all ASCII): file-type's other answers do not change a text verdict. Skipping it for text saved
  // its work twice an upload (the cost estimate and the parse worker each detect), and the V8
  // compilations of its 400-line detector (120–150 ms each, again after each deoptimisation).
  if (text && !BINARY_SIGNATURES.some((signature) => startsWith(bytes, signature))) return { kind: 'text' };
  const type = await fileTypeFromBuffer(bytes).catch(() => undefined);
  // PDF readers accept up to 1 KB of junk before the header; file-type only looks at offset 0.
  if (!type && !text && hasPdfHeaderNearStart(bytes)) return { kind: 'binary-format', family: 'pdf' };
  switch (type?.ext) {
    case 'pdf':
      return { kind: 'binary-format', family: 'pdf' };
    case 'png':
    case 'apng':
      return { kind: 'binary-format', family: 'png' };
    case 'jpg':
      return { kind: 'binary-format', family: 'jpeg' };
    case 'tif':
      return { kind: 'binary-format', family: 'tiff' };
    case 'bmp':
      // file-type only checks "BM", which plenty of text files start with.
      if (isBmpHeader(bytes)) return { kind: 'binary-format', family: 'bmp' };
      break;
    default:
      // Weak signatures (2–4 printable bytes: "MZ", "ID3", "<?xml"…) also start ordinary text.
      if (type && !text) return { kind: 'other', label: `a ${type.ext.toUpperCase()} file (${type.mime})` };
  }
  return text ? { kind: 'text' } : { kind: 'other', label: 'binary data' };
}

function sniffZip(bytes: Uint8Array): Sniffed {
  const directory = readZipDirectory(bytes);
  if (!directory.ok) return { kind: 'broken-zip' };
  const entries = new Map(directory.entries.map((entry) => [entry.name, entry]));
  for (const [part, family] of OOXML_MAIN_PARTS) {
    const main = entries.get(part);
    if (!main || !entries.has('[Content_Types].xml')) continue;
    // ZIP-level encryption of the main part: nothing can be read without the password.
    return main.encrypted ? { kind: 'encrypted-ooxml' } : { kind: 'binary-format', family };
  }
  if (entries.has('mimetype') && entries.has('content.xml')) return sniffOpenDocument(bytes);
  return { kind: 'other', label: 'a ZIP archive' };
}

/**
 * ODF packages store `mimetype` first and uncompressed, so its text sits right after the first local
 * header: read there (nothing inflated). A package written otherwise is an OpenDocument file of
 * unknown kind, left to its name.
 */
function sniffOpenDocument(bytes: Uint8Array): Sniffed {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const stored =
    view.length >= ODF_MIMETYPE_OFFSET && view.readUInt16LE(8) === 0 && view.readUInt16LE(28) === 0;
  if (stored && view.toString('latin1', 30, ODF_MIMETYPE_OFFSET) === 'mimetype') {
    const size = view.readUInt32LE(18);
    const mimetype = view.toString('latin1', ODF_MIMETYPE_OFFSET, ODF_MIMETYPE_OFFSET + Math.min(size, 100));
    for (const [type, family] of ODF_FAMILIES) {
      if (mimetype === type || mimetype.startsWith(`${type}-`)) return { kind: 'binary-format', family };
    }
    return { kind: 'other', label: `an OpenDocument file of another kind (${mimetype})` };
  }
  return { kind: 'opendocument' };
}

/** "BM", then reserved zero words and a known DIB header size: real bitmaps, not words like "BMW". */
function isBmpHeader(bytes: Uint8Array): boolean {
  if (bytes.length < 26) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reserved = view.getUint32(6, true);
  const dibSize = view.getUint32(14, true);
  return reserved === 0 && [12, 16, 40, 52, 56, 64, 108, 124].includes(dibSize);
}

function hasPdfHeaderNearStart(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes('%PDF-');
}

function startsWith(bytes: Uint8Array, signature: readonly number[]): boolean {
  return signature.every((byte, i) => bytes[i] === byte);
}
