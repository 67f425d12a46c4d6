import { abortError, throwIfAborted } from '../abort.js';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import type { Entry, ZipFile } from 'yauzl';
import type { ParseContext } from '../context.js';
import { ParseError } from '../errors.js';

/**
 * Below this many uncompressed bytes an entry's compression ratio is not checked: small parts made of
 * repeated markup (empty styles, blank sheets) legitimately compress far better than 200:1, and they
 * cannot hurt because the total budget still counts them.
 */
const RATIO_CHECK_FLOOR = 1024 * 1024;

/** How often (in entries) the central directory walk looks at the abort signal. */
const ABORT_CHECK_EVERY = 256;

/** A read-only view of a ZIP archive that never inflates more than the parse limits allow. */
export interface SafeZip {
  /** Names of the file entries (directories excluded), in archive order. */
  readonly names: readonly string[];
  /** Uncompressed size the central directory declares for an entry (reads enforce it); 0 when absent. */
  declaredSize(name: string): number;
  /** Whether an entry exists; OOXML part names are case-insensitive, so this is too. */
  has(name: string): boolean;
  /** Inflates one entry within the limits; `null` when there is no such entry. */
  read(name: string): Promise<Buffer | null>;
  /**
   * Inflates one entry chunk by chunk within the same limits, for parts read as a stream (an XLSX
   * sheet): only the chunk at hand is in memory. `null` when there is no such entry.
   */
  stream(name: string): AsyncIterable<Buffer> | null;
  /** Uncompressed bytes inflated so far by all reads (what counts against `maxUncompressedBytes`). */
  readonly bytesInflated: number;
}

type ZipContext = Pick<ParseContext, 'limits' | 'signal'>;

/**
 * Opens ZIP bytes with yauzl and checks the central directory before anything is inflated: entry count
 * (`too_complex`), encrypted entries (`encrypted_document`), unsafe or duplicate names and unknown
 * compression methods (`corrupt_document`). Reads then enforce, while inflating, the total
 * uncompressed budget and the per-entry ratio (`too_large`) and the sizes the headers declare
 * (`corrupt_document` when an entry lies).
 */
export async function openSafeZip(bytes: Uint8Array, ctx: ZipContext): Promise<SafeZip> {
  const { limits, signal } = ctx;
  if (bytes.byteLength === 0) throw new ParseError('empty_document', 'the file is empty');
  if (bytes.byteLength > limits.maxInputBytes) {
    throw new ParseError('too_large', `the file is larger than ${limits.maxInputBytes} bytes`);
  }
  throwIfAborted(signal);
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const zip = await openBuffer(buffer);
  if (zip.entryCount > limits.maxZipEntries) {
    zip.close();
    throw new ParseError(
      'too_complex',
      `the archive has ${zip.entryCount} entries; at most ${limits.maxZipEntries} are allowed`,
    );
  }
  const entries = await listEntries(zip, signal);
  const byLowerName = new Map<string, Entry>();
  for (const entry of entries.values()) byLowerName.set(entry.fileName.toLowerCase(), entry);
  let bytesInflated = 0;

  const find = (name: string): Entry | undefined => {
    const clean = name.replace(/^\/+/, '');
    return entries.get(clean) ?? byLowerName.get(clean.toLowerCase());
  };

  return {
    names: [...entries.keys()],
    has: (name) => find(name) !== undefined,
    declaredSize: (name) => find(name)?.uncompressedSize ?? 0,
    get bytesInflated() {
      return bytesInflated;
    },
    async read(name) {
      const entry = find(name);
      if (!entry) return null;
      // Sized once from the header (which the inflater holds the entry to): no chunk list, no concat.
      const data = Buffer.allocUnsafe(entry.uncompressedSize);
      let length = 0;
      for await (const chunk of inflateWithinLimits(entry)) {
        chunk.copy(data, length);
        length += chunk.length;
      }
      return data.subarray(0, length);
    },
    stream(name) {
      const entry = find(name);
      return entry ? inflateWithinLimits(entry) : null;
    },
  };

  function inflateWithinLimits(entry: Entry): AsyncGenerator<Buffer> {
    throwIfAborted(signal);
    const remaining = limits.maxUncompressedBytes - bytesInflated;
    if (entry.uncompressedSize > remaining) {
      throw new ParseError(
        'too_large',
        `${entry.fileName} would inflate to ${entry.uncompressedSize} bytes, over the ${limits.maxUncompressedBytes}-byte limit for a document`,
      );
    }
    checkRatio(entry.fileName, entry.uncompressedSize, entry.compressedSize, limits.maxCompressionRatio);
    return inflate(zip, entry, {
      signal,
      maxRatio: limits.maxCompressionRatio,
      // Counted live, so that reads running side by side still share one budget.
      addBytes: (count) => {
        bytesInflated += count;
        return bytesInflated <= limits.maxUncompressedBytes;
      },
    });
  }
}

function openBuffer(buffer: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    const fail = (error: Error): void =>
      reject(
        new ParseError('corrupt_document', `not a readable ZIP archive: ${error.message}`, { cause: error }),
      );
    // strictFileNames false: backslashes from Windows tools become slashes *before* yauzl rejects
    // absolute and `..` names, so `..\\evil` is refused like `../evil`.
    try {
      yauzl.fromBuffer(
        buffer,
        { lazyEntries: true, validateEntrySizes: true, decodeStrings: true, strictFileNames: false },
        (error, zip) => (error ? fail(error) : resolve(zip)),
      );
    } catch (error) {
      fail(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

function listEntries(zip: ZipFile, signal: AbortSignal): Promise<Map<string, Entry>> {
  return new Promise((resolve, reject) => {
    const entries = new Map<string, Entry>();
    let seen = 0;
    const fail = (error: ParseError): void => {
      zip.removeAllListeners();
      zip.on('error', () => undefined);
      zip.close();
      reject(error);
    };
    zip.on('error', (error: Error) => {
      fail(new ParseError('corrupt_document', `broken ZIP archive: ${error.message}`, { cause: error }));
    });
    zip.on('end', () => resolve(entries));
    zip.on('entry', (entry: Entry) => {
      seen += 1;
      if (seen % ABORT_CHECK_EVERY === 0 && signal.aborted) {
        fail(abortError(signal));
        return;
      }
      const problem = checkEntry(entry, entries);
      if (problem) {
        fail(problem);
        return;
      }
      if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.readEntry();
  });
}

function checkEntry(entry: Entry, entries: Map<string, Entry>): ParseError | null {
  if (entry.isEncrypted()) {
    return new ParseError('encrypted_document', `the archive entry ${entry.fileName} is encrypted`);
  }
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
    return new ParseError(
      'corrupt_document',
      `the archive entry ${entry.fileName} uses unsupported compression method ${entry.compressionMethod}`,
    );
  }
  if (entries.has(entry.fileName)) {
    // Two entries with one name are read differently by different tools: refuse the ambiguity.
    return new ParseError('corrupt_document', `the archive has two entries named ${entry.fileName}`);
  }
  return null;
}

function checkRatio(name: string, uncompressed: number, compressed: number, maxRatio: number): void {
  if (uncompressed <= RATIO_CHECK_FLOOR) return;
  const ratio = uncompressed / Math.max(compressed, 1);
  if (ratio > maxRatio) {
    throw new ParseError(
      'too_large',
      `${name} expands ${Math.round(ratio)}:1, over the ${maxRatio}:1 limit (a decompression bomb?)`,
    );
  }
}

interface InflateOptions {
  signal: AbortSignal;
  maxRatio: number;
  /** Counts inflated bytes against the document's budget; false once it is exceeded. */
  addBytes(count: number): boolean;
}

/**
 * Streams one entry through yauzl's inflater and stops it the moment a limit is crossed, so a lying
 * header or a bomb costs at most one chunk beyond the limit.
 */
async function* inflate(zip: ZipFile, entry: Entry, options: InflateOptions): AsyncGenerator<Buffer> {
  let stream: Readable;
  try {
    stream = await openReadStream(zip, entry);
  } catch (error) {
    throw mapStreamError(entry, error);
  }
  const onAbort = (): void => void stream.destroy(abortError(options.signal));
  options.signal.addEventListener('abort', onAbort, { once: true });
  let total = 0;
  try {
    throwIfAborted(options.signal);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.length;
      const withinBudget = options.addBytes(chunk.length);
      if (total > entry.uncompressedSize) {
        throw new ParseError('corrupt_document', `${entry.fileName} is larger than its ZIP header says`);
      }
      if (!withinBudget) {
        throw new ParseError(
          'too_large',
          `${entry.fileName} inflates beyond the document's uncompressed-size limit`,
        );
      }
      if (total > RATIO_CHECK_FLOOR && total / Math.max(entry.compressedSize, 1) > options.maxRatio) {
        throw new ParseError(
          'too_large',
          `${entry.fileName} expands beyond ${options.maxRatio}:1 (a decompression bomb?)`,
        );
      }
      yield chunk;
    }
  } catch (error) {
    if (error instanceof ParseError) throw error;
    if (options.signal.aborted) throw abortError(options.signal);
    throw mapStreamError(entry, error);
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    // A reader that stopped early (or a limit) leaves the inflater mid-entry: stop it.
    if (!stream.destroyed) {
      stream.on('error', () => undefined);
      stream.destroy();
    }
  }
}

function openReadStream(zip: ZipFile, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error) reject(error);
      else resolve(stream);
    });
  });
}

function mapStreamError(entry: Entry, error: unknown): ParseError {
  const message = error instanceof Error ? error.message : String(error);
  if (/too many bytes|not enough bytes/.test(message)) {
    return new ParseError('corrupt_document', `${entry.fileName} does not match the size in its ZIP header`, {
      cause: error,
    });
  }
  return new ParseError('corrupt_document', `cannot inflate ${entry.fileName}: ${message}`, { cause: error });
}
