import type { ReadableOptions } from 'node:stream';
import type {
  AllStreamResolvedEvent,
  AppendExpectedRevision,
  AppendResult,
  Direction,
  EventData,
  Filter,
  ReadPosition,
  ReadRevision,
  ResolvedEvent,
} from '@eventstore/db-client';
import { EventStoreUnavailableError } from './eventStore.js';
import { settleWithin } from '../settleWithin.js';

/** A finite read from the client: iterate it; `cancel` stops the gRPC call, `destroy` the stream. */
export interface EsdbRead<E> extends AsyncIterable<E> {
  cancel(): Promise<void>;
  destroy(error?: Error): unknown;
}

/** A catch-up subscription from the client: an object-mode Readable of resolved events. */
export interface EsdbSubscription {
  read(): unknown;
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  readonly readableEnded: boolean;
  /** Items buffered and not read yet. */
  readonly readableLength: number;
  destroy(error?: Error): unknown;
  unsubscribe(): Promise<void>;
}

/**
 * The part of `EventStoreDBClient` the adapter uses, so tests can put a simulated client in its
 * place. The real client satisfies it as it is.
 */
export interface EsdbClient {
  appendToStream(
    streamName: string,
    events: EventData[],
    options: { expectedRevision: AppendExpectedRevision },
  ): Promise<AppendResult>;
  readStream(
    streamName: string,
    options: { fromRevision: ReadRevision; direction: Direction; maxCount: number },
  ): EsdbRead<ResolvedEvent>;
  readAll(options: {
    fromPosition: ReadPosition;
    direction: Direction;
    maxCount: number;
    resolveLinkTos: false;
  }): EsdbRead<AllStreamResolvedEvent>;
  subscribeToAll(
    options: { fromPosition: ReadPosition; filter: Filter; resolveLinkTos: false },
    readableOptions: ReadableOptions,
  ): EsdbSubscription;
  subscribeToStream(
    streamName: string,
    options: { fromRevision: ReadRevision; resolveLinkTos: false },
    readableOptions: ReadableOptions,
  ): EsdbSubscription;
  tombstoneStream(streamName: string): Promise<unknown>;
  dispose(): Promise<void>;
}

/**
 * Reads everything a finite read returns. The client gives reads no deadline, so a server that
 * stops answering would hang them: a read that makes no progress for `idleTimeoutMs` is cancelled
 * and fails as unavailable.
 */
export async function collectRead<E>(read: EsdbRead<E>, idleTimeoutMs: number): Promise<E[]> {
  const items: E[] = [];
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      read.destroy(
        new EventStoreUnavailableError(`EventStoreDB unavailable: no answer within ${idleTimeoutMs} ms`),
      );
      read.cancel().catch(() => undefined);
    }, idleTimeoutMs);
  };
  arm();
  try {
    for await (const item of read) {
      items.push(item);
      arm();
    }
    return items;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Bounds a call the client may never settle: it fetches the server's capabilities before the
 * first append with no deadline at all, so a server that accepts connections but does not answer
 * would hang appends for as long as the operating system keeps the connection attempt open. The
 * outcome of a write cut short is unknown: it may still be applied, so retry it with the same
 * expected version (or the same event ids, which the server de-duplicates).
 */
export function bounded<T>(call: Promise<T>, timeoutMs: number): Promise<T> {
  return settleWithin(
    call,
    timeoutMs,
    () => new EventStoreUnavailableError(`EventStoreDB unavailable: no answer within ${timeoutMs} ms`),
  );
}
