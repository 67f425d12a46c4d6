/**
 * `run` made once and shared, as long as it succeeds: a rejection is handed to the callers that
 * waited for it and then forgotten, so the next call runs `run` again. For one-time set-up against a
 * store (declaring a collection, creating a schema) that an outage can fail: remembering the failure
 * would fail every later call of the process, long after the store is back.
 */
export function onceSucceeded<T>(run: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () =>
    (pending ??= run().catch((error: unknown) => {
      pending = null;
      throw error;
    }));
}
