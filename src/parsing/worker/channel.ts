/** An async queue: producers push, one consumer iterates; `fail` makes the iteration throw. */
export interface Channel<T> extends AsyncIterable<T> {
  push(item: T): void;
  end(): void;
  fail(error: unknown): void;
}

export function createChannel<T>(): Channel<T> {
  const items: T[] = [];
  let ended = false;
  let failure: { error: unknown } | null = null;
  let wake: (() => void) | null = null;
  const notify = (): void => {
    wake?.();
    wake = null;
  };
  return {
    push(item) {
      if (ended || failure) return;
      items.push(item);
      notify();
    },
    end() {
      ended = true;
      notify();
    },
    fail(error) {
      if (ended || failure) return;
      failure = { error };
      notify();
    },
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (items.length > 0) {
          yield items.shift()!;
          continue;
        }
        if (failure) throw failure.error;
        if (ended) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}
