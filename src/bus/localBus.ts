import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Bus, ConsumeOptions, Consumer, DeadLetter, Delivery, JobHandler, Notification } from './bus.js';
import {
  BusUnavailableError,
  DEFAULT_CONSUME_OPTIONS,
  deadLetterSubject,
  retryDelay,
  subjectMatches,
} from './bus.js';
import { LIMIT_BOUND } from '../sqliteLimit.js';

export interface LocalBusOptions {
  /** SQLite file that keeps queued jobs across restarts; omitted: jobs live in memory only. */
  path?: string;
}

interface MessageRow {
  seq: number;
  id: string;
  payload: string;
  deliveries: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  id TEXT NOT NULL,
  payload TEXT NOT NULL,
  deliveries INTEGER NOT NULL DEFAULT 0,
  available_at INTEGER NOT NULL,
  leased_until INTEGER,
  UNIQUE (queue, id)
);
CREATE INDEX IF NOT EXISTS messages_due ON messages (queue, available_at);
DROP TABLE IF EXISTS recent_ids;
CREATE TABLE IF NOT EXISTS job_ids (
  queue TEXT NOT NULL,
  id TEXT NOT NULL,
  PRIMARY KEY (queue, id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dead_letters (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  queue TEXT NOT NULL,
  id TEXT NOT NULL,
  payload TEXT NOT NULL,
  deliveries INTEGER NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT,
  at TEXT NOT NULL
);
`;

/**
 * The in-process bus: work queues in SQLite (a file when `path` is given, so queued jobs survive a
 * restart; memory otherwise) and pub/sub in memory. It serves one process: at start-up it releases
 * the leases a previous run of the process held, so interrupted jobs are delivered again at once.
 */
export function createLocalBus(options: LocalBusOptions = {}): Bus {
  if (options.path) mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path ?? ':memory:');
  db.pragma('journal_mode = WAL');
  // NORMAL survives a crash of the process (the WAL is in the OS page cache); only an OS crash can
  // lose the newest commits. Jobs are derived from events, so such a loss is repaired: the task
  // watchdog re-dispatches tasks left pending, and enqueueing is idempotent.
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);
  db.prepare('UPDATE messages SET leased_until = NULL WHERE leased_until IS NOT NULL').run();

  const subscribers = new Set<{ pattern: string; handler: (message: Notification) => void }>();
  const queueWakers = new Map<string, Set<() => void>>();
  const consumers = new Set<Consumer>();
  let closed = false;

  const statements = {
    claimId: db.prepare('INSERT OR IGNORE INTO job_ids (queue, id) VALUES (?, ?)'),
    insert: db.prepare('INSERT INTO messages (queue, id, payload, available_at) VALUES (?, ?, ?, ?)'),
    due: db.prepare<[string, number, number], MessageRow>(
      `SELECT seq, id, payload, deliveries FROM messages
       WHERE queue = ? AND available_at <= ? AND (leased_until IS NULL OR leased_until <= ?)
       ORDER BY available_at, seq LIMIT 1`,
    ),
    lease: db.prepare('UPDATE messages SET deliveries = deliveries + 1, leased_until = ? WHERE seq = ?'),
    nextWake: db.prepare<[string], { at: number | null }>(
      'SELECT min(coalesce(leased_until, available_at)) AS at FROM messages WHERE queue = ?',
    ),
    remove: db.prepare<[number, number]>('DELETE FROM messages WHERE seq = ? AND deliveries = ?'),
    release: db.prepare<[number, number, number]>(
      'UPDATE messages SET leased_until = NULL, available_at = ? WHERE seq = ? AND deliveries = ?',
    ),
    extend: db.prepare<[number, number, number]>(
      'UPDATE messages SET leased_until = ? WHERE seq = ? AND deliveries = ?',
    ),
    bury: db.prepare(
      'INSERT INTO dead_letters (queue, id, payload, deliveries, reason, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    deadLetters: db.prepare<[string, number], Omit<DeadLetter, 'payload'> & { payload: string }>(
      `SELECT queue, id, payload, deliveries, reason, detail, at FROM dead_letters WHERE queue = ? ORDER BY seq DESC ${LIMIT_BOUND}`,
    ),
  };

  function assertOpen(): void {
    if (closed) throw new BusUnavailableError('bus is closed');
  }

  /** Stores the job unless its id was ever enqueued on the queue; true when it was stored. */
  const enqueueOnce = db.transaction((queue: string, id: string, payload: string, now: number): boolean => {
    if (statements.claimId.run(queue, id).changes === 0) return false;
    statements.insert.run(queue, id, payload, now);
    return true;
  });

  function publish(subject: string, payload: Record<string, unknown>): void {
    for (const subscriber of [...subscribers]) {
      if (subjectMatches(subscriber.pattern, subject)) subscriber.handler({ subject, payload });
    }
  }

  /** Moves a job to the dead letters, unless it was settled meanwhile (its delivery count moved on). */
  const deadLetter = db.transaction(
    (queue: string, row: MessageRow, reason: DeadLetter['reason'], detail: string | null) => {
      if (statements.remove.run(row.seq, row.deliveries).changes === 0) return null;
      const letter: DeadLetter = {
        queue,
        id: row.id,
        payload: JSON.parse(row.payload) as Record<string, unknown>,
        deliveries: row.deliveries,
        reason,
        detail,
        at: new Date().toISOString(),
      };
      statements.bury.run(queue, row.id, row.payload, row.deliveries, reason, detail, letter.at);
      return letter;
    },
  );

  function bury(queue: string, row: MessageRow, reason: DeadLetter['reason'], detail: string | null): void {
    const letter = deadLetter(queue, row, reason, detail);
    if (letter) publish(deadLetterSubject(queue), { ...letter });
  }

  /** Leases the next due job, dead-lettering jobs whose last allowed delivery ran out. */
  const claimNext = (queue: string, settings: Required<ConsumeOptions>): MessageRow | null => {
    for (;;) {
      const now = Date.now();
      const row = statements.due.get(queue, now, now);
      if (!row) return null;
      if (row.deliveries >= settings.maxDeliveries) {
        bury(queue, row, 'max_deliveries', `not acknowledged after ${row.deliveries} deliveries`);
        continue;
      }
      statements.lease.run(now + settings.ackWaitMs, row.seq);
      return { ...row, deliveries: row.deliveries + 1 };
    }
  };

  function consume(queue: string, handler: JobHandler, consumeOptions: ConsumeOptions = {}): Consumer {
    assertOpen();
    const settings: Required<ConsumeOptions> = { ...DEFAULT_CONSUME_OPTIONS, ...consumeOptions };
    const active = new Set<Promise<void>>();
    let stopped = false;
    let timer: NodeJS.Timeout | null = null;
    let pumpQueued = false;

    const wake = (): void => {
      if (pumpQueued || stopped) return;
      pumpQueued = true;
      setImmediate(pump);
    };
    const wakers = queueWakers.get(queue) ?? new Set();
    wakers.add(wake);
    queueWakers.set(queue, wakers);

    function pump(): void {
      pumpQueued = false;
      if (stopped || closed) return;
      while (active.size < settings.concurrency) {
        const row = claimNext(queue, settings);
        if (!row) break;
        const run = deliver(row).finally(() => {
          active.delete(run);
          wake();
        });
        active.add(run);
      }
      armTimer();
    }

    /** Sleeps until the earliest delayed job or lease expiry of this queue. */
    function armTimer(): void {
      if (timer) clearTimeout(timer);
      timer = null;
      const at = statements.nextWake.get(queue)?.at;
      if (at === null || at === undefined) return;
      timer = setTimeout(wake, Math.min(Math.max(at - Date.now(), 0) + 1, 60_000));
      timer.unref();
    }

    async function deliver(row: MessageRow): Promise<void> {
      let settled = false;
      const settle = (action: () => void): Promise<void> => {
        if (!settled && !closed) {
          settled = true;
          action();
        }
        return Promise.resolve();
      };
      const delivery: Delivery = {
        id: row.id,
        queue,
        payload: JSON.parse(row.payload) as Record<string, unknown>,
        deliveryCount: row.deliveries,
        ack: () => settle(() => void statements.remove.run(row.seq, row.deliveries)),
        nak: (delayMs = 0) =>
          settle(() => {
            if (row.deliveries >= settings.maxDeliveries) {
              bury(queue, row, 'max_deliveries', `negatively acknowledged ${row.deliveries} times`);
            } else {
              statements.release.run(Date.now() + delayMs, row.seq, row.deliveries);
              wake();
            }
          }),
        term: (reason) => settle(() => bury(queue, row, 'terminated', reason)),
        working: () => {
          if (!settled && !closed)
            statements.extend.run(Date.now() + settings.ackWaitMs, row.seq, row.deliveries);
          return Promise.resolve();
        },
      };
      try {
        await handler(delivery);
        await delivery.ack();
      } catch {
        await delivery.nak(retryDelay(settings.retryDelaysMs, row.deliveries));
      }
    }

    const consumer: Consumer = {
      async stop() {
        stopped = true;
        if (timer) clearTimeout(timer);
        wakers.delete(wake);
        consumers.delete(consumer);
        await Promise.allSettled([...active]);
      },
    };
    consumers.add(consumer);
    wake();
    return consumer;
  }

  return {
    async enqueue(queue, job) {
      assertOpen();
      if (!enqueueOnce(queue, job.id, JSON.stringify(job.payload), Date.now())) return false;
      for (const wake of queueWakers.get(queue) ?? []) wake();
      return true;
    },
    consume,
    async deadLetters(queue, listOptions = {}) {
      assertOpen();
      return statements.deadLetters
        .all(queue, listOptions.limit ?? 100)
        .map((row) => ({ ...row, payload: JSON.parse(row.payload) as Record<string, unknown> }));
    },
    publish(subject, payload) {
      if (!closed) publish(subject, payload);
    },
    subscribe(pattern, handler) {
      const subscriber = { pattern, handler };
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    },
    async health() {
      return closed ? { healthy: false, reason: 'bus is closed' } : { healthy: true, reason: null };
    },
    async close() {
      if (closed) return;
      await Promise.all([...consumers].map((consumer) => consumer.stop()));
      closed = true;
      subscribers.clear();
      db.close();
    },
  };
}
