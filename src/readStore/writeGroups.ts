import type { WriteOperation } from './readStore.js';

export interface WriteGroupCommitter {
  /** Commits one write in a transaction of its own; throws when it fails. */
  commitOne(operations: readonly WriteOperation[]): void;
  /**
   * Commits several writes in one transaction, each in a savepoint. Returns the failures by index
   * (those writes were rolled back, the others committed); throws when the whole group failed.
   */
  commitMany(writes: ReadonlyArray<readonly WriteOperation[]>): Map<number, unknown>;
}

export interface WriteGroups {
  /** Queues a write, committed with the others queued before the event loop's next turn. */
  add(write: { operations: readonly WriteOperation[]; resolve(): void; reject(error: unknown): void }): void;
  /** Commits the queued writes now: before anything else changes the database. */
  flush(): void;
}

/** Group commit for a store whose writes are synchronous: see the SQLite read store's `write`. */
export function createWriteGroups(committer: WriteGroupCommitter): WriteGroups {
  let queued: Array<Parameters<WriteGroups['add']>[0]> = [];
  let scheduled = false;

  function flush(): void {
    if (queued.length === 0) return;
    const writes = queued;
    queued = [];
    try {
      if (writes.length === 1) {
        committer.commitOne(writes[0]!.operations);
        writes[0]!.resolve();
        return;
      }
      const failures = committer.commitMany(writes.map((write) => write.operations));
      writes.forEach((write, i) => (failures.has(i) ? write.reject(failures.get(i)) : write.resolve()));
    } catch (error) {
      for (const write of writes) write.reject(error);
    }
  }

  return {
    add(write) {
      queued.push(write);
      if (scheduled) return;
      scheduled = true;
      setImmediate(() => {
        scheduled = false;
        flush();
      });
    },
    flush,
  };
}
