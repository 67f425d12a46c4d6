import type { EventFilter, EventStore, RecordedEvent } from './eventStore.js';

/** Where a feed starts and what it carries. */
export interface EventFeedOptions {
  /** One stream, by version (`from` is then the last version already seen); otherwise the whole log. */
  stream?: string;
  /** The last position (or stream version) already seen: the feed starts after it. Default 0. */
  from?: number;
  /** Only streams of these categories (`task`, `document`, … — the part of a stream name before `-`). */
  categories?: readonly string[];
  /** Only events of these types. */
  types?: readonly string[];
  /** Keep following new events after the ones that exist now (default: stop at the current end). */
  follow?: boolean;
  signal?: AbortSignal;
}

/** One event of a feed, with the cursor a reader resumes after (`from`). */
export interface FeedItem {
  event: RecordedEvent;
  cursor: number;
}

/** The store-side filter for categories and types; the store applies it (see EventFilter). */
function feedFilter(options: Pick<EventFeedOptions, 'categories' | 'types'>): EventFilter | undefined {
  const filter: EventFilter = {
    ...(options.categories?.length ? { streamPrefixes: options.categories.map((c) => `${c}-`) } : {}),
    ...(options.types?.length ? { eventTypes: options.types } : {}),
  };
  return Object.keys(filter).length > 0 ? filter : undefined;
}

/**
 * The events of the log (or of one stream) in order, from a cursor, as the audit tools read them:
 * `archivist events` and `GET /api/v1/events`. Without `follow` it ends at the end the log had
 * when it started; with it, it goes on live, without gaps or repeats at the hand-over.
 */
export async function* eventFeed(
  store: EventStore,
  options: EventFeedOptions = {},
): AsyncGenerator<FeedItem> {
  const from = options.from ?? 0;
  const signal = options.signal;
  if (options.stream !== undefined) {
    const end = (await store.streamInfo(options.stream)).version;
    if (!options.follow && from >= end) return;
    const subscription = store.subscribeToStream(options.stream, {
      fromVersion: from + 1,
      ...(signal ? { signal } : {}),
    });
    try {
      for await (const batch of subscription) {
        for (const event of batch) {
          if (!passes(event, options)) continue;
          yield { event, cursor: event.streamVersion };
        }
        const reached = batch.at(-1)?.streamVersion ?? from;
        if (!options.follow && reached >= end) return;
      }
    } finally {
      subscription.close();
    }
    return;
  }
  const filter = feedFilter(options);
  const end = await store.headPosition(filter);
  if (!options.follow && from >= end) return;
  const subscription = store.subscribeToAll({
    fromPosition: from,
    ...(filter ? { filter } : {}),
    ...(signal ? { signal } : {}),
  });
  try {
    for await (const batch of subscription) {
      for (const event of batch.events) yield { event, cursor: event.position };
      if (!options.follow && batch.checkpoint >= end) return;
    }
  } finally {
    subscription.close();
  }
}

/** A stream subscription carries every event of its stream: categories and types are checked here. */
function passes(event: RecordedEvent, options: EventFeedOptions): boolean {
  if (options.types?.length && !options.types.includes(event.type)) return false;
  return true;
}
