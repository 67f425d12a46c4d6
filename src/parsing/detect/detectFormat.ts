import { ParseError } from '../errors.js';
import { isSupportedExtension, type Extension } from '../model.js';
import { decodeText } from '../text/decode.js';
import { FAMILY_LABELS, sniffBytes, type BinaryFamily } from './sniff.js';

type TextExtension = '.txt' | '.md' | '.markdown' | '.rst' | '.html' | '.htm' | '.json' | '.csv';

const BINARY_FAMILY_OF: Partial<Record<Extension, BinaryFamily>> = {
  '.pdf': 'pdf',
  '.png': 'png',
  '.jpg': 'jpeg',
  '.jpeg': 'jpeg',
  '.tiff': 'tiff',
  '.tif': 'tiff',
  '.bmp': 'bmp',
  '.docx': 'docx',
  '.pptx': 'pptx',
  '.xlsx': 'xlsx',
  '.odt': 'odt',
  '.ods': 'ods',
  '.odp': 'odp',
};

/** The extension a file without a usable name gets for each family. */
const CANONICAL_EXTENSION: Record<BinaryFamily, Extension> = {
  pdf: '.pdf',
  png: '.png',
  jpeg: '.jpg',
  tiff: '.tiff',
  bmp: '.bmp',
  docx: '.docx',
  pptx: '.pptx',
  xlsx: '.xlsx',
  odt: '.odt',
  ods: '.ods',
  odp: '.odp',
};

const OPEN_DOCUMENT: ReadonlySet<string> = new Set(['.odt', '.ods', '.odp']);

const TEXT_EXTENSIONS: ReadonlySet<string> = new Set<TextExtension>([
  '.txt',
  '.md',
  '.markdown',
  '.rst',
  '.html',
  '.htm',
  '.json',
  '.csv',
]);

/**
 * Decides which parser reads a file, from its name and its bytes.
 *
 * - Binary formats are recognised by their bytes (magic numbers, the ZIP central directory for
 *   DOCX/PPTX/XLSX, the stored `mimetype` for ODT/ODS/ODP); the name must agree up to family (`.jpg`/`.jpeg`, `.tif`/`.tiff`), else
 *   `format_mismatch`. An encrypted OOXML package (an OLE file) is `encrypted_document`.
 * - Text formats cannot be told apart reliably by content, so among them the name wins (a .txt
 *   holding HTML is read as text); text bytes under a binary name are a mismatch.
 * - No extension: the bytes decide (HTML and JSON are sniffed, other text is .txt). An extension
 *   Archivist does not parse is accepted only when the bytes prove a supported binary format.
 * - Bytes that look binary but match no signature, under a binary name, go to that parser, which
 *   reports the damage (`corrupt_document`) better than a guess here could.
 *
 * @throws ParseError `empty_document`, `unsupported_format`, `format_mismatch`, `encrypted_document`.
 */
export async function detectFormat(bytes: Uint8Array, fileName: string): Promise<Extension> {
  if (bytes.length === 0)
    throw new ParseError('empty_document', `${fileName || 'the file'} is empty (0 bytes)`);
  const ext = extensionOf(fileName);
  const named: Extension | null = ext !== null && isSupportedExtension(ext) ? ext : null;
  const nameLabel = named ? `${named} (${describeExtension(named)})` : null;
  const sniffed = await sniffBytes(bytes);
  const mismatch = (actual: string): ParseError =>
    new ParseError('format_mismatch', `${fileName} is named ${nameLabel ?? ext} but its bytes are ${actual}`);
  const unsupported = (what: string): ParseError =>
    new ParseError(
      'unsupported_format',
      ext === null
        ? `${fileName || 'the file'} has no extension and its bytes are ${what}, which is not a supported format`
        : `${ext} is not a supported format (${fileName}: ${what})`,
    );

  switch (sniffed.kind) {
    case 'binary-format': {
      if (named === null) return CANONICAL_EXTENSION[sniffed.family];
      if (BINARY_FAMILY_OF[named] === sniffed.family) return named;
      throw mismatch(FAMILY_LABELS[sniffed.family]);
    }
    case 'encrypted-ooxml': {
      const family = named ? BINARY_FAMILY_OF[named] : undefined;
      if (named === null || family === 'docx' || family === 'pptx' || family === 'xlsx') {
        throw new ParseError('encrypted_document', `${fileName} is a password-protected Office document`);
      }
      throw mismatch('a password-protected Office document');
    }
    case 'opendocument': {
      if (named && OPEN_DOCUMENT.has(named)) return named;
      if (named) throw mismatch('an OpenDocument file');
      throw unsupported('an OpenDocument file of unknown kind');
    }
    case 'broken-zip': {
      const family = named ? BINARY_FAMILY_OF[named] : undefined;
      if (named && family && ['docx', 'pptx', 'xlsx', 'odt', 'ods', 'odp'].includes(family)) return named;
      if (named) throw mismatch('a damaged ZIP archive');
      throw unsupported('a damaged ZIP archive');
    }
    case 'text': {
      if (named && TEXT_EXTENSIONS.has(named)) return named;
      if (named) throw mismatch('text');
      if (ext === null) return sniffTextFormat(bytes);
      throw unsupported('text');
    }
    case 'other': {
      if (named === null) throw unsupported(sniffed.label);
      if (sniffed.label === 'binary data' && BINARY_FAMILY_OF[named]) return named;
      throw mismatch(sniffed.label);
    }
  }
}

/** Lower-case extension with its dot (`Report.PDF` → `.pdf`), or null; dot-files have none. */
export function extensionOf(fileName: string): string | null {
  const base = fileName.trim().split(/[/\\]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  if (dot <= 0 || dot === base.length - 1) return null;
  return base.slice(dot).toLowerCase();
}

function describeExtension(ext: Extension): string {
  const family = BINARY_FAMILY_OF[ext];
  return family ? FAMILY_LABELS[family] : 'a text format';
}

/** Content sniffing for nameless text: clear HTML or JSON markers, else plain text. */
function sniffTextFormat(bytes: Uint8Array): Extension {
  const head = decodeText(bytes.subarray(0, 4096)).text.trimStart();
  if (
    /^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html[\s>]|head[\s>]|body[\s>])/i.test(head)
  ) {
    return '.html';
  }
  if (/^[{[]/.test(head)) {
    const tail = decodeText(bytes.subarray(Math.max(0, bytes.length - 64))).text.trimEnd();
    if (/[}\]]$/.test(tail)) return '.json';
  }
  return '.txt';
}
