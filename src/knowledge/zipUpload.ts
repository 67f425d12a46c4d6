import { DEFAULT_PARSE_LIMITS } from '../parsing/context.js';
import { extensionOf } from '../parsing/detect/detectFormat.js';
import { ParseError } from '../parsing/errors.js';
import { SUPPORTED_EXTENSIONS } from '../parsing/model.js';
import { openSafeZip } from '../parsing/office/safeZip.js';

export interface ZipLimits {
  maxEntries: number;
  /** Sum of the uncompressed sizes of the files extracted. */
  maxTotalBytes: number;
  /** Uncompressed size of one file. */
  maxEntryBytes: number;
  /** Uncompressed/compressed ratio of one entry (decompression bombs). */
  maxRatio: number;
}

export interface ZipContents {
  /**
   * The entries to ingest, in archive order. Each is inflated only when read (under the ratio and
   * size limits), so an archive's files are never all in memory at once. `read` answers a reason
   * instead of bytes when the entry breaks a limit or is corrupt.
   */
  files: Array<{ name: string; read(): Promise<{ bytes: Buffer } | { skipped: string }> }>;
  /** Entries not extracted, with why (unsupported type, nested archive, too large). */
  skipped: Array<{ name: string; reason: string }>;
}

const ARCHIVES = /\.(zip|jar|war|7z|rar|tar|gz|tgz|bz2|xz)$/i;
const IGNORED = /(^|\/)(__MACOSX\/|\.DS_Store$|Thumbs\.db$)/;

export class ZipUploadError extends Error {
  override readonly name = 'ZipUploadError';
}

/**
 * The files of an uploaded ZIP archive that can be ingested. The archive is refused as a whole
 * (`ZipUploadError`) when its directory is unreadable, holds too many entries or declares more
 * than the total limit — before anything is inflated; names with `..` or absolute paths make it
 * unreadable (yauzl refuses them). Nested archives, unsupported types and entries over the per-file
 * limit are skipped with a reason; the rest are inflated one by one when read.
 */
export async function readZipUpload(
  bytes: Buffer,
  limits: ZipLimits,
  signal: AbortSignal,
): Promise<ZipContents> {
  let zip;
  try {
    zip = await openSafeZip(bytes, {
      signal,
      limits: {
        ...DEFAULT_PARSE_LIMITS,
        maxInputBytes: Math.max(bytes.byteLength, 1),
        maxZipEntries: limits.maxEntries,
        maxUncompressedBytes: limits.maxTotalBytes,
        maxCompressionRatio: limits.maxRatio,
      },
    });
  } catch (error) {
    if (error instanceof ParseError)
      throw new ZipUploadError(`The archive cannot be extracted: ${error.message}`);
    throw error;
  }
  const supported: ReadonlySet<string> = new Set(SUPPORTED_EXTENSIONS);
  const contents: ZipContents = { files: [], skipped: [] };
  const wanted: string[] = [];
  for (const name of zip.names) {
    if (IGNORED.test(name)) continue;
    if (ARCHIVES.test(name)) contents.skipped.push({ name, reason: 'nested archives are not extracted' });
    else if (!supported.has(extensionOf(name) ?? ''))
      contents.skipped.push({ name, reason: 'unsupported file type' });
    else if (zip.declaredSize(name) > limits.maxEntryBytes) {
      contents.skipped.push({ name, reason: `larger than ${limits.maxEntryBytes} bytes uncompressed` });
    } else wanted.push(name);
  }
  const declared = wanted.reduce((sum, name) => sum + zip.declaredSize(name), 0);
  if (declared > limits.maxTotalBytes) {
    throw new ZipUploadError(
      `The archive would extract to ${declared} bytes; the limit is ${limits.maxTotalBytes}`,
    );
  }
  for (const name of wanted) {
    contents.files.push({
      name,
      async read() {
        try {
          const data = await zip.read(name);
          return data ? { bytes: data } : { skipped: 'empty entry' };
        } catch (error) {
          if (!(error instanceof ParseError)) throw error;
          return { skipped: error.message };
        }
      },
    });
  }
  return contents;
}
