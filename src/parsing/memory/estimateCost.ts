import { detectFormat } from '../detect/detectFormat.js';
import { readZipDirectory, type ZipEntryName } from '../detect/zipDirectory.js';
import type { Extension } from '../model.js';
import { COST_MODEL, type CostModel } from './costModel.js';
import { imagePixels } from './imageSize.js';

/** What parsing one input is expected to cost in memory, judged before any heavy work. */
export interface ParseCost {
  /** Upper estimate of the memory the parse needs while it runs, in bytes. */
  bytes: number;
  /** What the estimate rests on, in words, for refusals and logs (e.g. "word/document.xml inflates to 263 MB"). */
  basis: string;
}

const MB = 1024 * 1024;

/** `276 MB`, `0.4 MB`: sizes in the unit people read upload limits in. */
export function megabytes(bytes: number): string {
  const value = bytes / MB;
  return `${value >= 10 ? Math.round(value).toLocaleString('en') : value.toFixed(1)} MB`;
}

/**
 * Estimates the memory parsing `bytes` will take, from what can be read without inflating or
 * decoding anything: the detected format, the file's size, the uncompressed sizes a ZIP's central
 * directory declares for the parts that will be read (the safe ZIP reader refuses a part that
 * inflates beyond its declared size, so they are upper bounds), a PDF's page count, an image's
 * pixel count from its header. Costs a few milliseconds whatever the input; counting stops once the
 * estimate passes `enough` (the budget: beyond it the exact figure changes nothing).
 *
 * @throws ParseError what format detection throws (`empty_document`, `unsupported_format`, …): the
 *   worker would refuse the input for the same reason.
 */
export async function estimateParseCost(
  input: { bytes: Uint8Array; fileName: string },
  model: CostModel = COST_MODEL,
  enough = Number.POSITIVE_INFINITY,
): Promise<ParseCost> {
  const format = await detectFormat(input.bytes, input.fileName);
  const size = input.bytes.byteLength;
  const variable = variableCost(format, input.bytes, model, enough);
  return {
    bytes: Math.ceil(model.fixedBytes + model.inputCopies * size + variable.bytes),
    basis: variable.basis,
  };
}

function variableCost(format: Extension, bytes: Uint8Array, model: CostModel, enough: number): ParseCost {
  const size = bytes.byteLength;
  switch (format) {
    case '.docx':
    case '.pptx':
    case '.xlsx':
    case '.odt':
    case '.ods':
    case '.odp':
      return packageCost(format, bytes, model);
    case '.pdf': {
      const pages = pdfPageCount(bytes);
      return {
        bytes: model.pdfFixedBytes + model.pdfPerByte * size + model.pdfPerPage * pages,
        basis: `a PDF of ${megabytes(size)} with about ${pages} pages`,
      };
    }
    case '.png':
    case '.jpg':
    case '.jpeg':
    case '.tiff':
    case '.tif':
    case '.bmp': {
      const pixels = imagePixels(bytes);
      return {
        // Without a readable header (TIFF, BMP), one pixel per byte: both are mostly uncompressed.
        bytes: model.imagePerPixel * Math.min(pixels ?? size, model.imageMaxPixels),
        basis:
          pixels === null
            ? `an image of ${megabytes(size)}`
            : `an image of ${(pixels / 1e6).toFixed(1)} megapixels`,
      };
    }
    case '.csv': {
      const fields = countBytes(bytes, CSV_SEPARATORS, enough / model.csvPerField);
      // Many short fields cost per field; a few long ones cost like text.
      const asFields = model.csvPerField * fields.count + model.csvPerByte * size;
      return {
        bytes: Math.max(asFields, (model.textPerByte['.csv'] ?? 0) * size),
        basis: `${megabytes(size)} of CSV text with ${fields.complete ? 'up to' : 'more than'} ${fields.count.toLocaleString('en')} fields`,
      };
    }
    default: {
      const perByte = model.textPerByte[format] ?? Math.max(...Object.values(model.textPerByte));
      const lines = LINE_FORMATS.has(format)
        ? countBytes(bytes, LINE_ENDS, enough / model.textPerLine).count
        : 0;
      return {
        bytes: perByte * size + model.textPerLine * lines,
        basis: `${megabytes(size)} of ${format.slice(1).toUpperCase()} text`,
      };
    }
  }
}

/** Formats whose lines become blocks of their own (a list item, a short paragraph). */
const LINE_FORMATS: ReadonlySet<Extension> = new Set(['.txt', '.md', '.markdown', '.rst']);
const LINE_ENDS = byteSet('\n');
/** Any delimiter the CSV reader may pick, and line ends: an upper bound on the fields. */
const CSV_SEPARATORS = byteSet(',;\t|\n');

function byteSet(characters: string): Uint8Array {
  const set = new Uint8Array(256);
  for (const character of characters) set[character.charCodeAt(0)] = 1;
  return set;
}

/**
 * How many bytes of `bytes` are in `set` (a plain loop: ~50 ms for 50 MB), stopping once there are
 * more than `limit`: `complete` says whether the count is the whole file's.
 */
function countBytes(bytes: Uint8Array, set: Uint8Array, limit: number): { count: number; complete: boolean } {
  let count = 0;
  for (let i = 0; i < bytes.length; i += 1) {
    count += set[bytes[i]!]!;
    if (count > limit) return { count, complete: false };
  }
  return { count, complete: true };
}

type PartKind = 'xml' | 'sheet' | 'sharedStrings' | 'media' | 'unread';

/** Which parts a parser reads, and how: only those count (embedded files and the like are never read). */
function partKind(format: Extension, name: string): PartKind {
  const lower = name.toLowerCase();
  if (/\/media\//.test(lower) || lower.startsWith('pictures/')) return 'media';
  if (!lower.endsWith('.xml') && !lower.endsWith('.rels')) return 'unread';
  if (format === '.xlsx') {
    if (lower.startsWith('xl/worksheets/') && !lower.includes('/_rels/')) return 'sheet';
    if (lower === 'xl/sharedstrings.xml') return 'sharedStrings';
  }
  return 'xml';
}

function packageCost(format: Extension, bytes: Uint8Array, model: CostModel): ParseCost {
  const directory = readZipDirectory(bytes);
  // Unreadable: the worker reports the damage at once, after reading only the directory.
  if (!directory.ok) return { bytes: 0, basis: 'a damaged ZIP archive' };
  const perByte: Record<PartKind, number> = {
    xml: model.xmlPerByte,
    sheet: model.sheetPerByte,
    sharedStrings: model.sharedStringsPerByte,
    media: model.mediaPerByte,
    unread: 0,
  };
  let cost = 0;
  let inflated = 0;
  let largest: ZipEntryName | null = null;
  for (const entry of directory.entries) {
    const kind = partKind(format, entry.name);
    if (kind === 'unread') continue;
    cost += perByte[kind] * entry.uncompressedSize;
    inflated += entry.uncompressedSize;
    if (!largest || entry.uncompressedSize > largest.uncompressedSize) largest = entry;
  }
  const basis = largest
    ? `its parts inflate to ${megabytes(inflated)}; ${largest.name} alone to ${megabytes(largest.uncompressedSize)}`
    : 'an empty package';
  return { bytes: cost, basis };
}

/**
 * Pages of a PDF without parsing it: the largest `/Count` (the root of the page tree counts them
 * all), else the `/Type /Page` objects; at least one. Page trees inside compressed object streams
 * are not seen, which is why bytes weigh in the estimate too.
 */
export function pdfPageCount(bytes: Uint8Array): number {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let most = 0;
  for (let at = buffer.indexOf(COUNT); at !== -1; at = buffer.indexOf(COUNT, at + COUNT.length)) {
    const digits = /^\s*(\d{1,7})/.exec(buffer.toString('latin1', at + COUNT.length, at + COUNT.length + 16));
    if (digits) most = Math.max(most, Number(digits[1]));
  }
  if (most > 0) return most;
  let pages = 0;
  for (let at = buffer.indexOf(TYPE); at !== -1; at = buffer.indexOf(TYPE, at + TYPE.length)) {
    if (/^\s*\/Page(?![A-Za-z])/.test(buffer.toString('latin1', at + TYPE.length, at + TYPE.length + 16)))
      pages += 1;
  }
  return Math.max(pages, 1);
}

const COUNT = Buffer.from('/Count');
const TYPE = Buffer.from('/Type');
