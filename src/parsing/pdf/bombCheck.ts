import { constants, createInflate, inflateSync } from 'node:zlib';
import type { ParseLimits } from '../context.js';
import { ParseError } from '../errors.js';
import { throwIfAborted } from '../abort.js';

/** Streams may always inflate to this much, whatever their ratio (blank images compress very well). */
const FREE_INFLATE = 16 * 1024 * 1024;
/** Larger compressed streams are measured by streaming instead of inflating them into one buffer. */
const SYNC_LIMIT = 1024 * 1024;
/** The dictionary of a stream lies within this many bytes before its `stream` keyword. */
const DICT_WINDOW = 2048;

const STREAM = Buffer.from('stream');
const ENDSTREAM = Buffer.from('endstream');

/**
 * Rejects FlateDecode bombs before pdf.js sees them: pdf.js inflates a content stream completely into
 * one growing buffer, so 300 KB of PDF can cost a gigabyte and many seconds. Every Flate stream is
 * inflated once here, counting bytes without keeping them; a stream inflating beyond
 * `maxCompressionRatio` times its size (and beyond 16 MB), or all streams together beyond
 * `maxUncompressedBytes`, is `too_large`. Streams that do not inflate (encrypted, damaged) are left
 * to pdf.js. LZW streams are not measured.
 */
export async function assertNoDecompressionBomb(
  bytes: Uint8Array,
  limits: ParseLimits,
  signal: AbortSignal,
): Promise<void> {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let total = 0;
  let from = 0;
  let checked = 0;
  for (;;) {
    const at = buffer.indexOf(STREAM, from);
    if (at < 0) break;
    from = at + STREAM.length;
    if (at >= 3 && buffer.toString('latin1', at - 3, at) === 'end') continue;
    const dictionary = buffer.toString('latin1', Math.max(0, at - DICT_WINDOW), at);
    const dictStart = Math.max(dictionary.lastIndexOf('endstream'), dictionary.lastIndexOf('endobj'));
    const dict = dictStart >= 0 ? dictionary.slice(dictStart) : dictionary;
    if (!/\/FlateDecode\b/.test(dict)) continue;
    let start = from;
    if (buffer[start] === 0x0d) start += 1;
    if (buffer[start] === 0x0a) start += 1;
    const declared = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict);
    const length = declared ? Number(declared[1]) : -1;
    let end =
      length >= 0 && start + length <= buffer.length ? start + length : buffer.indexOf(ENDSTREAM, start);
    if (end < 0) end = buffer.length;
    from = Math.max(from, end);
    const data = buffer.subarray(start, end);
    const cap = Math.min(
      Math.max(FREE_INFLATE, limits.maxCompressionRatio * data.length),
      limits.maxUncompressedBytes - total + 1,
    );
    const size = data.length <= SYNC_LIMIT ? inflatedSizeSync(data, cap) : await inflatedSize(data, cap);
    if (size > cap) {
      throw new ParseError(
        'too_large',
        total + size > limits.maxUncompressedBytes
          ? `The PDF's streams inflate to more than ${limits.maxUncompressedBytes} bytes`
          : `A stream of the PDF inflates more than ${limits.maxCompressionRatio} times (a decompression bomb)`,
      );
    }
    total += size;
    if (++checked % 64 === 0) throwIfAborted(signal);
  }
}

function inflatedSizeSync(data: Buffer, cap: number): number {
  try {
    return inflateSync(data, { maxOutputLength: Math.max(1, cap), finishFlush: constants.Z_SYNC_FLUSH })
      .length;
  } catch (error) {
    if (error instanceof RangeError) return cap + 1;
    return 0;
  }
}

/** Streams the inflation and stops as soon as `cap` is passed; only counts, keeps nothing. */
function inflatedSize(data: Buffer, cap: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
    let size = 0;
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) {
        inflate.destroy();
        resolve(size);
      }
    });
    inflate.on('end', () => resolve(size));
    inflate.on('error', () => resolve(size));
    inflate.end(data);
  });
}
