import { inflateSync } from 'node:zlib';

type DecompressionStreamClass = typeof DecompressionStream;

/** Marks the replacement, so that loading twice does not wrap it again. */
const SYNC_DEFLATE = Symbol.for('archivist.syncDeflateDecompression');

/**
 * pdf.js 5 inflates every Flate stream (each page's content, once for its text and once for its
 * operator list, and every font file) through `new DecompressionStream('deflate')`. In Node that is
 * zlib on the libuv thread pool behind web streams: several promise hops and a round trip to another
 * thread per stream, while the parse thread waits. Profiles of the 54-page text PDF showed that
 * thread idle 9 % of the parse on a quiet machine and 21 % on a busy one (waiting for the pool, which
 * other work shares), plus ~4 % in zlib's chunk callbacks; inflating all of its 63 streams in one
 * synchronous call each takes ~1 ms.
 *
 * So in a thread that loads pdf.js, `DecompressionStream` for the `deflate` format gathers its input
 * and inflates it in one synchronous call when the input ends — the same bytes, or the same error for
 * damaged data, which pdf.js answers by inflating the stream with its own decoder as before. Other
 * formats (`deflate-raw`, used by file-type to look inside ZIPs, and `gzip`) stay native. The size of
 * what is inflated was bounded before pdf.js saw the file (bombCheck.ts).
 */
export function installSyncDeflateDecompression(): void {
  const found = (globalThis as { DecompressionStream?: DecompressionStreamClass }).DecompressionStream;
  if (found === undefined || SYNC_DEFLATE in found) return;
  const Native = found;
  function DecompressionStreamWithSyncDeflate(
    format: ConstructorParameters<DecompressionStreamClass>[0],
  ): DecompressionStream {
    if (format !== 'deflate') return new Native(format);
    return syncDeflateStream();
  }
  Object.defineProperty(DecompressionStreamWithSyncDeflate, SYNC_DEFLATE, { value: true });
  Object.defineProperty(globalThis, 'DecompressionStream', {
    value: DecompressionStreamWithSyncDeflate,
    writable: true,
    configurable: true,
    enumerable: false,
  });
}

function syncDeflateStream(): DecompressionStream {
  const chunks: Uint8Array[] = [];
  return new TransformStream<unknown, Uint8Array>({
    transform(chunk) {
      chunks.push(bytesOf(chunk));
    },
    flush(controller) {
      const inflated = inflateSync(Buffer.concat(chunks));
      chunks.length = 0;
      controller.enqueue(new Uint8Array(inflated.buffer, inflated.byteOffset, inflated.byteLength));
    },
  });
}

/** A copy of the chunk's bytes: the writer may reuse its buffer once the write resolved. */
function bytesOf(chunk: unknown): Uint8Array {
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk.slice(0));
  if (ArrayBuffer.isView(chunk)) {
    return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength).slice();
  }
  throw new TypeError('DecompressionStream accepts only ArrayBuffer or ArrayBufferView chunks');
}
