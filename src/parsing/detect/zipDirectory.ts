/**
 * Reads the names in a ZIP file's central directory without inflating anything, so that format
 * detection can tell DOCX, PPTX and XLSX apart (and spot a plain ZIP) at the cost of a few
 * kilobytes of header parsing, whatever the archive claims to contain.
 */

export interface ZipEntryName {
  name: string;
  /** General-purpose flag bit 0: the entry's data is encrypted (ZipCrypto/AES). */
  encrypted: boolean;
  /**
   * Size the central directory declares once inflated (from the ZIP64 extra field when the classic
   * field is saturated). The safe reader refuses an entry that inflates beyond it, so it is an upper
   * bound on what reading the entry can cost.
   */
  uncompressedSize: number;
  compressedSize: number;
}

export type ZipDirectory =
  | { ok: true; entries: ZipEntryName[] }
  /** No readable end-of-central-directory record (truncated or damaged archive). */
  | { ok: false; reason: string };

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
const EOCD_MIN_SIZE = 22;
const MAX_COMMENT = 0xffff;
const CENTRAL_HEADER_SIZE = 46;

/**
 * Lists the entry names of the ZIP in `bytes`. Stops after `maxEntries` names: detection only needs
 * to see the main parts, and a hostile archive with millions of entries must not cost much here.
 */
export function readZipDirectory(bytes: Uint8Array, maxEntries = 100_000): ZipDirectory {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eocd = findEndOfCentralDirectory(view);
  if (eocd < 0) return { ok: false, reason: 'no end-of-central-directory record' };

  let entryCount = view.getUint16(eocd + 10, true);
  let directorySize = view.getUint32(eocd + 12, true);
  let directoryOffset = view.getUint32(eocd + 16, true);

  if (entryCount === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    const zip64 = readZip64Record(view, eocd);
    if (!zip64) return { ok: false, reason: 'damaged ZIP64 end-of-central-directory record' };
    ({ entryCount, directorySize, directoryOffset } = zip64);
  }

  // Archives with bytes prepended (self-extractors, some generators) have offsets shifted by the
  // prefix; the directory always ends right where the end record starts, so prefer that position.
  const impliedOffset = eocd - directorySize;
  const start =
    impliedOffset >= 0 && signatureAt(view, impliedOffset) === CENTRAL_HEADER_SIGNATURE
      ? impliedOffset
      : directoryOffset;

  const entries: ZipEntryName[] = [];
  const decoder = new TextDecoder('utf-8');
  let position = start;
  for (let i = 0; i < entryCount && entries.length < maxEntries; i += 1) {
    if (position + CENTRAL_HEADER_SIZE > view.byteLength) break;
    if (view.getUint32(position, true) !== CENTRAL_HEADER_SIGNATURE) {
      if (entries.length === 0) return { ok: false, reason: 'central directory not found' };
      break;
    }
    const flags = view.getUint16(position + 8, true);
    const compressedSize = view.getUint32(position + 20, true);
    const uncompressedSize = view.getUint32(position + 24, true);
    const nameLength = view.getUint16(position + 28, true);
    const extraLength = view.getUint16(position + 30, true);
    const commentLength = view.getUint16(position + 32, true);
    const nameStart = position + CENTRAL_HEADER_SIZE;
    if (nameStart + nameLength > view.byteLength) break;
    const name = decoder.decode(bytes.subarray(nameStart, nameStart + nameLength));
    const sizes = readZip64Sizes(view, nameStart + nameLength, extraLength, {
      uncompressedSize,
      compressedSize,
    });
    entries.push({ name, encrypted: (flags & 1) === 1, ...sizes });
    position = nameStart + nameLength + extraLength + commentLength;
  }
  return { ok: true, entries };
}

function findEndOfCentralDirectory(view: DataView): number {
  const last = view.byteLength - EOCD_MIN_SIZE;
  const first = Math.max(0, last - MAX_COMMENT);
  for (let position = last; position >= first; position -= 1) {
    if (view.getUint32(position, true) !== EOCD_SIGNATURE) continue;
    // A signature inside a comment is possible: accept only if the comment length fits exactly.
    const commentLength = view.getUint16(position + 20, true);
    if (position + EOCD_MIN_SIZE + commentLength <= view.byteLength) return position;
  }
  return -1;
}

function readZip64Record(
  view: DataView,
  eocd: number,
): { entryCount: number; directorySize: number; directoryOffset: number } | null {
  const locator = eocd - 20;
  if (locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR_SIGNATURE) return null;
  const recordOffset = Number(view.getBigUint64(locator + 8, true));
  if (recordOffset + 56 > view.byteLength) return null;
  if (view.getUint32(recordOffset, true) !== ZIP64_EOCD_SIGNATURE) return null;
  return {
    entryCount: Number(view.getBigUint64(recordOffset + 32, true)),
    directorySize: Number(view.getBigUint64(recordOffset + 40, true)),
    directoryOffset: Number(view.getBigUint64(recordOffset + 48, true)),
  };
}

type EntrySizes = Pick<ZipEntryName, 'uncompressedSize' | 'compressedSize'>;

const SATURATED = 0xffffffff;
const ZIP64_EXTRA_ID = 0x0001;

/**
 * Sizes saturated at 0xFFFFFFFF in the central header are in the ZIP64 extra field, in this order:
 * uncompressed, then compressed (each present only when its classic field is saturated).
 */
function readZip64Sizes(view: DataView, start: number, length: number, classic: EntrySizes): EntrySizes {
  if (classic.uncompressedSize !== SATURATED && classic.compressedSize !== SATURATED) return classic;
  const sizes = { ...classic };
  const end = Math.min(start + length, view.byteLength);
  for (let at = start; at + 4 <= end;) {
    const id = view.getUint16(at, true);
    const size = view.getUint16(at + 2, true);
    if (id === ZIP64_EXTRA_ID) {
      let field = at + 4;
      const next = (): number | null => {
        if (field + 8 > Math.min(at + 4 + size, end)) return null;
        const value = Number(view.getBigUint64(field, true));
        field += 8;
        return value;
      };
      if (classic.uncompressedSize === SATURATED) sizes.uncompressedSize = next() ?? SATURATED;
      if (classic.compressedSize === SATURATED) sizes.compressedSize = next() ?? SATURATED;
      break;
    }
    at += 4 + size;
  }
  return sizes;
}

function signatureAt(view: DataView, position: number): number {
  return position + 4 <= view.byteLength ? view.getUint32(position, true) : -1;
}
