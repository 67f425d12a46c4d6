import type { Db } from 'mongodb';
import { onceSucceeded } from '../onceSucceeded.js';

/** What the server at hand does well and badly, for choosing how to send writes and searches. */
export interface ServerProfile {
  /** Most operations in one write command. */
  operationsPerCommand: number;
  /**
   * Every query but one by `_id` (and every update, even by `_id`) scans and decodes the whole
   * collection: new documents go in as inserts, and search reads whole candidates in one pass.
   */
  scans: boolean;
}

// FerretDB 1.x on SQLite, measured with 1.24.2: (1) every update in an `update` command keeps its
// cursor open until the command ends, and the server hangs for good once they exhaust its pool of
// 100 SQLite connections (80 updates in one command pass, 100 hang it), so commands stay small,
// also with a few writers at once; (2) it pushes down only `_id` equality, and its indexes are
// never used (they are built on another JSON expression than its queries use), so all reads but
// by id, and all updates, scan the table, while an insert is cheap.
const FERRETDB: ServerProfile = { operationsPerCommand: 8, scans: true };
const MONGODB: ServerProfile = { operationsPerCommand: Infinity, scans: false };

/** A memoised look-up of the server's profile (asked again after a failure). */
export function serverProfile(db: () => Db): () => Promise<ServerProfile> {
  return onceSucceeded(async () => {
    const info = await db().admin().command({ buildInfo: 1 });
    return typeof info['ferretdbVersion'] === 'string' ? FERRETDB : MONGODB;
  });
}
