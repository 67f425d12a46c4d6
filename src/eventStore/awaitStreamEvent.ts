import type { EventStore, RecordedEvent } from './eventStore.js';

/**
 * Follows `stream` from its start until `pick` finds what the caller waits for in one of its events,
 * and returns it: the one way anything waits for what a stream will record (a task's end, an
 * action's outcome). Events recorded before the call count, so nothing is missed between an append
 * and the wait. Rejects with the reason of `signal` when it aborts.
 */
export async function awaitStreamEvent<T>(
  eventStore: Pick<EventStore, 'subscribeToStream'>,
  stream: string,
  pick: (event: RecordedEvent) => T | undefined,
  signal: AbortSignal,
): Promise<T> {
  for await (const batch of eventStore.subscribeToStream(stream, { signal })) {
    for (const event of batch) {
      const picked = pick(event);
      if (picked !== undefined) return picked;
    }
  }
  signal.throwIfAborted();
  throw new Error(`the subscription to ${stream} ended before what was awaited was recorded`);
}
