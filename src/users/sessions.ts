import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../commands/context.js';
import type { ReadStore } from '../readStore/readStore.js';
import { onceSucceeded } from '../onceSucceeded.js';

const COLLECTION = 'sys_sessions';

// A type alias, not an interface: aliases are assignable to the read store's `Doc` record type.
export type Session = {
  userId: string;
  createdAt: string;
  /** Epoch milliseconds. */
  expiresAt: number;
};

type SessionDoc = Session & { id: string };

/**
 * Login sessions: short-lived bearer secrets, kept as records of the read store (shared by every
 * API process), not as events — a log that keeps everything for ever is the wrong home for a
 * credential that should vanish when it expires or its user logs out. Only the SHA-256 of the
 * session id is stored; the id itself lives in the client's cookie.
 */
export interface SessionStore {
  /** Starts a session; returns its id (for the cookie) and when it ends. */
  create(userId: string): Promise<{ sid: string; expiresAt: number }>;
  /** The session of `sid` while it has not expired; null otherwise. */
  find(sid: string): Promise<Session | null>;
  /** Ends the session (nothing happens for an unknown id). */
  end(sid: string): Promise<void>;
}

const digest = (sid: string): string => createHash('sha256').update(sid).digest('hex');
const SID = /^[A-Za-z0-9_-]{43}$/;

export function createSessionStore(deps: {
  readStore: ReadStore;
  clock: Clock;
  ttlMs: number;
}): SessionStore {
  const { readStore, clock, ttlMs } = deps;
  const init = onceSucceeded(() =>
    readStore.ensureCollection({ name: COLLECTION, indexes: ['expiresAt', 'userId'] }),
  );
  return {
    async create(userId) {
      await init();
      const sid = randomBytes(32).toString('base64url');
      const now = clock();
      const session: SessionDoc = {
        id: digest(sid),
        userId,
        createdAt: now.toISOString(),
        expiresAt: now.getTime() + ttlMs,
      };
      // Expired sessions go as new ones come: the collection holds live sessions only.
      await readStore.write([
        { op: 'deleteWhere', collection: COLLECTION, filter: { expiresAt: { $lte: now.getTime() } } },
        { op: 'upsert', collection: COLLECTION, doc: session },
      ]);
      return { sid, expiresAt: session.expiresAt };
    },
    async find(sid) {
      if (!SID.test(sid)) return null;
      await init();
      const doc = await readStore.get<SessionDoc>(COLLECTION, digest(sid));
      if (!doc || doc.expiresAt <= clock().getTime()) return null;
      return { userId: doc.userId, createdAt: doc.createdAt, expiresAt: doc.expiresAt };
    },
    async end(sid) {
      if (!SID.test(sid)) return;
      await init();
      await readStore.write([{ op: 'delete', collection: COLLECTION, id: digest(sid) }]);
    },
  };
}
