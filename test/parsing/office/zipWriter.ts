/**
 * A tiny ZIP writer for tests: it can build honest archives and the dishonest ones a parser must
 * refuse (lying sizes, encrypted flags, unsafe names, bombs, too many entries).
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { openSafeZip } from '../../../src/parsing/office/safeZip.js';
import { context } from './helpers.js';

export interface ZipEntrySpec {
  name: string;
  /** Content, deflated by the writer (or stored with `method: 0`). */
  data?: string | Buffer;
  /** Already-deflated data, for bombs too big to build in memory; `size` is its real inflated size. */
  deflated?: { bytes: Buffer; size: number };
  /** Uncompressed size written in both headers, when it should lie. */
  declaredSize?: number;
  method?: number;
  /** General-purpose flags (bit 0 = encrypted). */
  flags?: number;
}

export function buildZip(entries: readonly ZipEntrySpec[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const method = entry.method ?? 8;
    const content =
      typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : (entry.data ?? Buffer.alloc(0));
    const compressed = entry.deflated?.bytes ?? (method === 8 ? deflateRawSync(content) : content);
    const realSize = entry.deflated?.size ?? content.length;
    const size = entry.declaredSize ?? realSize;
    const crc = entry.deflated ? 0 : crc32(content);
    const flags = (entry.flags ?? 0) | 0x800; // UTF-8 names

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, compressed);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const tail: Buffer[] = [];
  const zip64 = entries.length > 0xfffe;
  if (zip64) {
    // More entries than the classic end record can count: add the ZIP64 record and its locator.
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeUInt16LE(45, 12);
    record.writeUInt16LE(45, 14);
    record.writeBigUInt64LE(BigInt(entries.length), 24);
    record.writeBigUInt64LE(BigInt(entries.length), 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 8);
  end.writeUInt16LE(zip64 ? 0xffff : entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, ...tail, end]);
}

/**
 * `size` bytes of zeros as one raw-deflate stream, built from a single compressed MiB repeated: each
 * copy ends with a full flush, so copies can be concatenated, and a final empty block closes the stream.
 * 1 GiB costs about 1 MB and a few milliseconds.
 */
export function deflatedZeros(size: number): { bytes: Buffer; size: number } {
  const mib = 1024 * 1024;
  if (size % mib !== 0) throw new Error('size must be a whole number of MiB');
  const chunk = deflateRawSync(Buffer.alloc(mib), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  const finalEmptyBlock = Buffer.from([0x03, 0x00]);
  return {
    bytes: Buffer.concat([...Array.from({ length: size / mib }, () => chunk), finalEmptyBlock]),
    size,
  };
}

/** The entries of an existing archive, with some parts replaced (string/Buffer) or removed (null). */
export async function rewriteZip(
  bytes: Uint8Array,
  changes: Readonly<Record<string, string | Buffer | null>>,
): Promise<Buffer> {
  const zip = await openSafeZip(bytes, context('rewrite.zip'));
  const entries: ZipEntrySpec[] = [];
  for (const name of zip.names) {
    if (name in changes) continue;
    entries.push({ name, data: (await zip.read(name)) ?? Buffer.alloc(0) });
  }
  for (const [name, data] of Object.entries(changes)) if (data !== null) entries.push({ name, data });
  return buildZip(entries);
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/></Types>`;
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/** A minimal DOCX (no styles unless given) around a `w:body`'s inner XML, for Word-only constructs. */
export function minimalDocx(bodyXml: string, parts: Record<string, string> = {}): Buffer {
  return buildZip([
    { name: '[Content_Types].xml', data: CONTENT_TYPES },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    },
    {
      name: 'word/document.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="${W}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>${bodyXml}</w:body></w:document>`,
    },
    ...Object.entries(parts).map(([name, data]) => ({ name, data })),
  ]);
}

/** The styles part `minimalDocx` callers pass (with its relationship) to test style resolution. */
export function docxStylesParts(stylesXml: string): Record<string, string> {
  return {
    'word/_rels/document.xml.rels': `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
    'word/styles.xml': `<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="${W}">${stylesXml}</w:styles>`,
  };
}
