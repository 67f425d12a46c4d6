import { randomUUID } from 'node:crypto';
import { Base64UrlPaddedCodec, Objm, StorageType, type ObjectStore } from '@nats-io/obj';
import { BusUnavailableError } from '../bus/bus.js';
import { createNatsLink, unlessLost, type NatsSession } from '../bus/natsConnection.js';
import { describeError, toBusError } from '../bus/natsErrors.js';
import { silentLogger, type Logger } from '../log.js';
import { assertBlobName, BlobMissingError, BlobStoreUnavailableError, type BlobStore } from './blobStore.js';

export interface NatsBlobStoreOptions {
  /** `nats://host:port`; several servers of one cluster separated by commas. */
  url: string;
  /** Object store bucket, created (file storage) when missing (default `archivist-blobs`). */
  bucket?: string;
  /**
   * How long a call waits for NATS to make progress — the connection to be ready, a request to be
   * answered, the next chunk to be stored or to arrive — before `BlobStoreUnavailableError`
   * (default 5 s).
   */
  timeoutMs?: number;
  log?: Logger;
}

/**
 * The client cuts blobs into chunks of at most this many bytes and never more than the server's
 * max_payload (1 MB by default): the largest chunks the server takes mean the fewest round trips.
 */
const MAX_CHUNK_BYTES = 1024 * 1024;
/** What `put` hands the client at a time; the client re-cuts it into chunks. */
const FEED_BYTES = 256 * 1024;

/** One call's view of its progress: what the call reports, and what it undoes when it gives up. */
interface Progress {
  /** NATS did something (answered, took or gave a chunk): the stall timer starts again. */
  made(): void;
  /** Runs `undo` when the call gives up (at once if it already has). */
  onAbort(undo: (error: Error) => void): void;
}

/**
 * A timer that rejects `stalled` after `ms` without progress. A whole-call deadline would fail a
 * 50 MB upload on a slow link although NATS is answering; a bound on each wait never hangs either.
 */
function stallTimer(
  ms: number,
  expired: () => Error,
): { stalled: Promise<never>; reset(): void; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let fail!: (error: Error) => void;
  const stalled = new Promise<never>((_, reject) => (fail = reject));
  const arm = (): void => {
    timer = setTimeout(() => fail(expired()), ms);
  };
  arm();
  return {
    stalled,
    reset() {
      clearTimeout(timer);
      arm();
    },
    stop: () => clearTimeout(timer),
  };
}

/**
 * The BlobStore on a NATS JetStream object store. The object store cuts a blob into chunks (one
 * message each, so blobs far larger than max_payload fit) and publishes its metadata last: a blob
 * without metadata does not exist, so a put cut short leaves no blob behind. The client purges the
 * chunks such a put published when it can; after a crash, or when that purge fails too, they stay in
 * the bucket, unreachable.
 *
 * The factory returns at once and connects in the background, forever (the bus's `NatsLink`), and
 * opens the bucket again after every reconnect. While the server is away a call fails with
 * `BlobStoreUnavailableError` within `timeoutMs`, and works again once it is back.
 */
export function createNatsBlobStore(options: NatsBlobStoreOptions): BlobStore {
  const { url } = options;
  const bucket = options.bucket ?? 'archivist-blobs';
  const timeoutMs = options.timeoutMs ?? 5_000;
  const stream = `OBJ_${bucket}`;
  const stores = new WeakMap<NatsSession, ObjectStore>();
  let closed = false;

  const link = createNatsLink({
    url,
    name: `archivist-blobs-${process.pid}`,
    log: options.log ?? silentLogger,
    apiTimeoutMs: timeoutMs,
    async setup(session) {
      // Opens the bucket when it exists; its configuration is left as it is.
      stores.set(session, await new Objm(session.js).create(bucket, { storage: StorageType.File }));
    },
  });

  function toBlobError(error: unknown, what: string): Error {
    if (error instanceof BlobMissingError || error instanceof BlobStoreUnavailableError) return error;
    if (closed) return new BlobStoreUnavailableError('blob store is closed');
    // The link's own errors already name the server.
    const message =
      error instanceof BusUnavailableError
        ? `blob ${what}: ${error.message}`
        : `blob ${what} on NATS at ${url}: ${describeError(error)}`;
    const unavailable =
      error instanceof BusUnavailableError || toBusError(error, what) instanceof BusUnavailableError;
    return unavailable
      ? new BlobStoreUnavailableError(message, { cause: error })
      : new Error(message, { cause: error });
  }

  /**
   * Runs `work` on the ready session's bucket: rejects as soon as the session is lost, or once NATS
   * made no progress for `timeoutMs` (waiting for the session included), and then lets `work` undo
   * what it started (a half-fed put, a half-read get).
   */
  async function call<T>(
    what: string,
    work: (store: ObjectStore, session: NatsSession, progress: Progress) => Promise<T>,
  ): Promise<T> {
    if (closed) throw new BlobStoreUnavailableError('blob store is closed');
    const timer = stallTimer(
      timeoutMs,
      () =>
        new BlobStoreUnavailableError(
          link.current()
            ? `blob ${what}: NATS at ${url} made no progress within ${timeoutMs} ms`
            : `blob ${what}: ${link.reason()}`,
        ),
    );
    let abortedWith: Error | null = null;
    const undos: ((error: Error) => void)[] = [];
    const progress: Progress = {
      made: () => timer.reset(),
      onAbort(undo) {
        if (abortedWith) undo(abortedWith);
        else undos.push(undo);
      },
    };
    try {
      const session = await Promise.race([link.ready(timeoutMs), timer.stalled]);
      const store = stores.get(session);
      if (!store) throw new BlobStoreUnavailableError(link.reason());
      timer.reset();
      return await Promise.race([unlessLost(session, work(store, session, progress)), timer.stalled]);
    } catch (error) {
      abortedWith = toBlobError(error, what);
      for (const undo of undos.splice(0)) undo(abortedWith);
      throw abortedWith;
    } finally {
      timer.stop();
    }
  }

  return {
    async put(bytes) {
      const name = randomUUID();
      await call('put', async (store, _session, progress) => {
        let offset = 0;
        let feed!: ReadableStreamDefaultController<Uint8Array>;
        const source = new ReadableStream<Uint8Array>({
          start(controller) {
            feed = controller;
          },
          // The client asks for more once it stored what it had: each ask is progress.
          pull(controller) {
            progress.made();
            if (offset >= bytes.length) {
              controller.close();
              return;
            }
            const end = Math.min(offset + FEED_BYTES, bytes.length);
            controller.enqueue(bytes.subarray(offset, end));
            offset = end;
          },
        });
        // Starving the client makes it stop publishing and purge the chunks it did publish.
        progress.onAbort((error) => feed.error(error));
        await store.put({ name, options: { max_chunk_size: MAX_CHUNK_BYTES } }, source, {
          timeout: timeoutMs,
        });
      });
      return name;
    },

    async get(name) {
      assertBlobName(name);
      return call('get', async (store, _session, progress) => {
        const result = await store.get(name);
        if (!result) throw new BlobMissingError(`blob ${name} is gone`);
        // Settled by the client beside the stream; read through the stream, so only kept from
        // becoming an unhandled rejection here.
        result.error.catch(() => {});
        const reader = result.data.getReader();
        // Cancelling stops the client's consumer of the chunks.
        progress.onAbort(() => void reader.cancel().catch(() => {}));
        const parts: Uint8Array[] = [];
        let size = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          progress.made();
          parts.push(value);
          size += value.length;
        }
        const failure = await result.error;
        if (failure) throw failure;
        return Buffer.concat(parts, size);
      });
    },

    async delete(name) {
      assertBlobName(name);
      await call('delete', async (store, session) => {
        // Marks the blob deleted (a tombstone), then purges its chunks; nothing when it is gone.
        const removed = await store.delete(name);
        if (!removed.success) return;
        // Names are never reused, so the tombstone serves nobody: without this purge every upload
        // would leave a metadata message in the stream for good.
        await session.jsm.streams.purge(stream, {
          filter: `$O.${bucket}.M.${Base64UrlPaddedCodec.encode(name)}`,
        });
      });
    },

    async health() {
      if (closed) return { healthy: false, reason: 'blob store is closed' };
      try {
        await call('health check', (store) => store.status());
        return { healthy: true, reason: null };
      } catch (error) {
        return { healthy: false, reason: link.current() ? describeError(error) : link.reason() };
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      await link.close();
    },
  };
}
