import type { AllBatch, EventFilter, EventStore, EventSubscription, RecordedEvent } from './eventStore.js';

/*
 * PostgreSQL text cannot hold a NUL character, and a stream name is made of ids that can come from
 * a URL (`DELETE /tasks/%00`): unencoded, such a name made every read of it fail ("invalid byte
 * sequence", then a 503 that retrying never cures) where the embedded store simply finds no stream.
 * Names are stored with `%` and NUL escaped, character by character, so prefixes stay prefixes and
 * every name comes back exactly as given.
 */
const encode = (name: string): string => name.replaceAll('%', '%25').replaceAll('\u0000', '%00');
const decode = (name: string): string =>
  name.replace(/%(25|00)/g, (_, code: string) => (code === '25' ? '%' : '\u0000'));

const decodeEvent = (event: RecordedEvent): RecordedEvent =>
  event.streamName.includes('%') ? { ...event, streamName: decode(event.streamName) } : event;

const encodeFilter = (filter: EventFilter | undefined): EventFilter | undefined =>
  filter?.streamPrefixes ? { ...filter, streamPrefixes: filter.streamPrefixes.map(encode) } : filter;

function mapSubscription<Batch>(
  subscription: EventSubscription<Batch>,
  map: (batch: Batch) => Batch,
): EventSubscription<Batch> {
  return {
    close: () => subscription.close(),
    [Symbol.asyncIterator]() {
      const inner = subscription[Symbol.asyncIterator]();
      return {
        next: async () => {
          const result = await inner.next();
          return result.done ? result : { done: false, value: map(result.value) };
        },
        return: async () => (await inner.return?.()) ?? { done: true, value: undefined },
      };
    },
  };
}

/** `store` with stream names escaped on the way in and restored on the way out. */
export function withEncodedStreamNames(store: EventStore): EventStore {
  return {
    ...store,
    append: (stream, events, options) => store.append(encode(stream), events, options),
    readStream: async (stream, options) => (await store.readStream(encode(stream), options)).map(decodeEvent),
    readAll: async (options = {}) =>
      (
        await store.readAll({
          ...options,
          ...(options.filter ? { filter: encodeFilter(options.filter)! } : {}),
        })
      ).map(decodeEvent),
    subscribeToAll: (options = {}) =>
      mapSubscription<AllBatch>(
        store.subscribeToAll({
          ...options,
          ...(options.filter ? { filter: encodeFilter(options.filter)! } : {}),
        }),
        (batch) => ({ ...batch, events: batch.events.map(decodeEvent) }),
      ),
    subscribeToStream: (stream, options) =>
      mapSubscription(store.subscribeToStream(encode(stream), options), (events) => events.map(decodeEvent)),
    streamInfo: (stream) => store.streamInfo(encode(stream)),
    setStreamMetadata: (stream, metadata) => store.setStreamMetadata(encode(stream), metadata),
    deleteStream: (stream) => store.deleteStream(encode(stream)),
    headPosition: (filter) => store.headPosition(encodeFilter(filter)),
  };
}
