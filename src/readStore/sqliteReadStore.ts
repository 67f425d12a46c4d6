import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SEARCH_STOP_WORDS } from '../text/stopWords.js';
import { assertFilter, valueAt } from './filter.js';
import { createFtsTopMatches } from './ftsTopMatches.js';
import { createMemoryTextIndexes } from './memoryTextIndexes.js';
import type {
  CollectionSpec,
  Doc,
  Filter,
  GroupCount,
  Lease,
  ReadStore,
  Scalar,
  WriteOperation,
} from './readStore.js';
import {
  ReadStoreUnavailableError,
  UnsupportedQueryError,
  WriteConflictError,
  meetsExpectation,
  assertCollectionName,
  assertFieldPath,
} from './readStore.js';
import { contentTerms, normalizedStopWords, searchTerms, type TextNormalizer } from '../text/searchTerms.js';
import { compileFilter, fieldExpression } from './sqliteFilter.js';
import { LIMIT_BOUND } from '../sqliteLimit.js';
import { isSqliteUnavailable } from '../sqliteErrors.js';

export interface SqliteReadStoreOptions {
  /** Database file (created with its folder), or `:memory:`. */
  path: string;
  /** Applied to indexed text and to search queries. Default: identity. */
  normalizeText?: TextNormalizer;
  /** Left out of `any` queries that have other terms. Default: the English and Arabic list. */
  stopWords?: Iterable<string>;
}

/** Pages deeper than this (skip + limit) in `any` mode are ranked by FTS5 alone. */
const MAX_TOP_MATCHES = 1_000;

interface CollectionState {
  table: string;
  textTable: string | null;
  textFields: readonly string[];
}

/**
 * The embedded read store: one table of JSON documents per collection, expression indexes on the
 * declared fields, and an FTS5 table (porter stemming over unicode61) for the declared text fields.
 * Deletion leaves nothing readable on disk: `secure_delete` zeroes freed pages, and the FTS5 table
 * keeps its own copy of the indexed text so that its secure-delete path can remove a document's
 * tokens from the index leaves (a contentless table only records tombstones and keeps the tokens). `write` runs in one transaction, so a projection's changes and its
 * checkpoint commit together.
 */
export type SqliteReadStore = ReadStore & {
  /** Resolves when the in-memory copies of text tables being built are ready (tests, benchmarks). */
  settleTextIndexes(): Promise<void>;
  /** Readiness of the in-memory text copies: until built, searches run on FTS5 alone (slower). */
  textIndexHealth(): { healthy: boolean; reason: string | null };
};

export function createSqliteReadStore(options: SqliteReadStoreOptions): SqliteReadStore {
  if (options.path !== ':memory:') mkdirSync(dirname(options.path), { recursive: true });
  const db = new Database(options.path);
  db.pragma('journal_mode = WAL');
  // A crash may lose the last commits of the read side, never corrupt it: projections catch up
  // again from their checkpoints, which commit with the data they describe.
  db.pragma('synchronous = NORMAL');
  db.pragma('secure_delete = ON');
  db.pragma('busy_timeout = 10000');
  db.exec(`CREATE TABLE IF NOT EXISTS _collections (name TEXT PRIMARY KEY, spec TEXT NOT NULL) WITHOUT ROWID;
           CREATE TABLE IF NOT EXISTS _leases (name TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL, epoch INTEGER NOT NULL DEFAULT 1) WITHOUT ROWID;`);
  // Stores written before leases had epochs.
  if (
    !(db.prepare('PRAGMA table_info(_leases)').all() as Array<{ name: string }>).some(
      (c) => c.name === 'epoch',
    )
  )
    db.exec('ALTER TABLE _leases ADD COLUMN epoch INTEGER NOT NULL DEFAULT 1');
  const normalize = options.normalizeText ?? ((text: string) => text);
  const stopWords = normalizedStopWords(options.stopWords ?? SEARCH_STOP_WORDS, normalize);
  const selectLease = db.prepare<[string], { owner: string; expires_at: number; epoch: number }>(
    'SELECT owner, expires_at, epoch FROM _leases WHERE name = ?',
  );
  const upsertLease = db.prepare(
    'INSERT INTO _leases (name, owner, expires_at, epoch) VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at, epoch = excluded.epoch',
  );
  const expireLease = db.prepare('UPDATE _leases SET expires_at = 0 WHERE name = ? AND owner = ?');
  const takeLease = db.transaction(
    (name: string, owner: string, now: number, ttlMs: number): Lease | null => {
      const row = selectLease.get(name);
      if (row && row.owner !== owner && row.expires_at > now) return null;
      const epoch = !row ? 1 : row.owner === owner ? row.epoch : row.epoch + 1;
      upsertLease.run(name, owner, now + ttlMs, epoch);
      return { name, owner, epoch };
    },
  );
  const collections = new Map<string, CollectionState>();
  const statementCache = new Map<string, Database.Statement>();
  let closed = false;
  // Search statistics of a text table stay valid until its text changes: writes by this connection
  // to a collection with text fields count here (`data_version` counts only other connections').
  // Counting every write made the statistics go with each projection checkpoint, and a common
  // term's count was taken again and again (lexical p50 1.2 ms in a quiet store, 5 ms in a server).
  const textWrites = new Map<string, number>();
  const textChanged = (state: CollectionState | null | undefined): void => {
    if (state?.textTable) textWrites.set(state.textTable, (textWrites.get(state.textTable) ?? 0) + 1);
  };
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const topMatches = createFtsTopMatches({
    statement: (sql) => statement(sql),
    version: (table) => `${String(dataVersion.get())}:${textWrites.get(table) ?? 0}`,
  });

  // Match-any searches read an in-memory copy of the text table once it is built (FTS5 until then).
  const memoryText = createMemoryTextIndexes({
    rowsAfter(table, rowid, limit) {
      const state = [...collections.values()].find((candidate) => candidate.textTable === table);
      // FTS5 keeps a table's text in its `_content` table (columns c0, c1 …): read by its rowid
      // B-tree. Through the virtual table, `rowid > ?` scanned from the start each time: a build
      // page took 1.3 s at 900k rows, and a restart at 1M chunks waited 278 s for this copy.
      const columns = (state?.textFields ?? []).map((_, i) => `c${i}`);
      if (columns.length === 0) return [];
      const rows = statement(
        `SELECT id, ${columns.join(', ')} FROM ${table}_content WHERE id > ? ORDER BY id ${LIMIT_BOUND}`,
      ).all(rowid, limit) as Array<Record<string, unknown>>;
      return rows.map((row) => ({
        rowid: Number(row['id']),
        values: columns.map((column) => (typeof row[column] === 'string' ? (row[column] as string) : '')),
      }));
    },
    dataVersion: () => Number(dataVersion.get()),
    // The copy is dropped and FTS5 answers; the next search builds it again.
    onError: () => undefined,
  });

  function statement(sql: string): Database.Statement {
    let cached = statementCache.get(sql);
    if (!cached) {
      // Shapes vary with `$in` list lengths: keep the cache bounded.
      if (statementCache.size >= 500) statementCache.clear();
      cached = db.prepare(sql);
      statementCache.set(sql, cached);
    }
    return cached;
  }

  function assertOpen(): void {
    if (closed) throw new ReadStoreUnavailableError('read store is closed');
  }

  /** Table names of a collection, and its text fields in the order of the text table's columns. */
  function stateOf(spec: CollectionSpec): CollectionState {
    const textFields = spec.textFields ?? [];
    return {
      table: `c_${spec.name}`,
      textTable: textFields.length > 0 ? `t_${spec.name}` : null,
      textFields,
    };
  }

  function createCollection(spec: CollectionSpec): CollectionState {
    assertCollectionName(spec.name);
    const state = stateOf(spec);
    const { table, textTable, textFields } = state;
    textFields.forEach(assertFieldPath);
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${table} (rid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, doc TEXT NOT NULL)`,
    );
    for (const field of spec.indexes ?? []) {
      db.exec(
        `CREATE INDEX IF NOT EXISTS ${table}__${field.replace(/\./g, '__')} ON ${table} (${fieldExpression(field)})`,
      );
    }
    if (textTable) {
      const columns = textFields.map((_, i) => `f${i}`).join(', ');
      db.exec(
        `CREATE VIRTUAL TABLE IF NOT EXISTS ${textTable} USING fts5(${columns}, tokenize='porter unicode61 remove_diacritics 2')`,
      );
      db.prepare(`INSERT INTO ${textTable} (${textTable}, rank) VALUES ('secure-delete', 1)`).run();
    }
    db.prepare(
      'INSERT INTO _collections (name, spec) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET spec = excluded.spec',
    ).run(spec.name, JSON.stringify(spec));
    collections.set(spec.name, state);
    if (spec.searchHot && textTable) memoryText.prepare(textTable);
    return state;
  }

  // Collections declared in an earlier run (by this or another process) are known without redeclaring.
  for (const row of db.prepare('SELECT spec FROM _collections').all() as Array<{ spec: string }>) {
    const spec = JSON.parse(row.spec) as CollectionSpec;
    collections.set(spec.name, stateOf(spec));
  }

  function collection(name: string): CollectionState | null {
    assertCollectionName(name);
    return collections.get(name) ?? null;
  }

  function requireCollection(name: string): CollectionState {
    return collection(name) ?? createCollection({ name });
  }

  function indexText(state: CollectionState, rid: number, doc: Doc): void {
    if (!state.textTable) return;
    const values = state.textFields.map((field) => {
      const value = valueAt(doc, field);
      return typeof value === 'string' ? normalize(value) : '';
    });
    statement(
      `INSERT INTO ${state.textTable} (rowid, ${values.map((_, i) => `f${i}`).join(', ')}) VALUES (?, ${values.map(() => '?').join(', ')})`,
    ).run(rid, ...values);
    memoryText.written(state.textTable, rid, values);
  }

  function unindexText(state: CollectionState, rid: number): void {
    if (!state.textTable) return;
    statement(`DELETE FROM ${state.textTable} WHERE rowid = ?`).run(rid);
    memoryText.written(state.textTable, rid, null);
  }

  function upsert(state: CollectionState, doc: Doc): void {
    if (typeof doc.id !== 'string' || doc.id.length === 0)
      throw new UnsupportedQueryError('a document needs a string id');
    const existing = statement(`SELECT rid FROM ${state.table} WHERE id = ?`).get(doc.id) as
      { rid: number } | undefined;
    const json = JSON.stringify(doc);
    if (existing) {
      statement(`UPDATE ${state.table} SET doc = ? WHERE rid = ?`).run(json, existing.rid);
      unindexText(state, existing.rid);
      indexText(state, existing.rid, doc);
    } else {
      const info = statement(`INSERT INTO ${state.table} (id, doc) VALUES (?, ?)`).run(doc.id, json);
      indexText(state, Number(info.lastInsertRowid), doc);
    }
  }

  function remove(state: CollectionState, rid: number): void {
    unindexText(state, rid);
    statement(`DELETE FROM ${state.table} WHERE rid = ?`).run(rid);
  }

  function checkPrecondition(operation: Extract<WriteOperation, { op: 'fence' | 'expect' }>): void {
    if (operation.op === 'fence') {
      const row = selectLease.get(operation.lease);
      if (row?.owner !== operation.owner || row.epoch !== operation.epoch) {
        throw new WriteConflictError(
          'fenced',
          `lease ${operation.lease} is no longer held by ${operation.owner} at epoch ${operation.epoch}`,
        );
      }
      return;
    }
    const state = collection(operation.collection);
    const row = state
      ? (statement(`SELECT doc FROM ${state.table} WHERE id = ?`).get(operation.id) as
          { doc: string } | undefined)
      : undefined;
    if (!meetsExpectation(row ? (JSON.parse(row.doc) as Doc) : null, operation.fields)) {
      throw new WriteConflictError('unexpected', `${operation.collection}/${operation.id} changed meanwhile`);
    }
  }

  const applyAll = db.transaction((operations: readonly WriteOperation[]) => {
    for (const operation of operations) {
      if (operation.op === 'fence' || operation.op === 'expect') {
        checkPrecondition(operation);
        continue;
      }
      const state = requireCollection(operation.collection);
      textChanged(state);
      switch (operation.op) {
        case 'upsert':
          upsert(state, operation.doc);
          break;
        case 'patch': {
          const row = statement(`SELECT doc FROM ${state.table} WHERE id = ?`).get(operation.id) as
            { doc: string } | undefined;
          if (!row) break;
          const doc = JSON.parse(row.doc) as Doc;
          for (const [key, value] of Object.entries(operation.set)) {
            if (key === 'id') continue;
            if (value === undefined) delete doc[key];
            else doc[key] = value;
          }
          upsert(state, doc);
          break;
        }
        case 'delete': {
          const row = statement(`SELECT rid FROM ${state.table} WHERE id = ?`).get(operation.id) as
            { rid: number } | undefined;
          if (row) remove(state, row.rid);
          break;
        }
        case 'deleteWhere': {
          const where = whereClause(operation.filter);
          const rows = statement(`SELECT rid FROM ${state.table} WHERE ${where.sql}`).all(
            ...where.params,
          ) as Array<{ rid: number }>;
          for (const row of rows) remove(state, row.rid);
          break;
        }
      }
    }
  });

  function whereClause(filter: Filter | undefined, column?: string): { sql: string; params: unknown[] } {
    if (filter) assertFilter(filter);
    return compileFilter(filter, column);
  }

  function parse<T>(rows: Array<{ doc: string }>): T[] {
    return rows.map((row) => JSON.parse(row.doc) as T);
  }

  const where = options.path === ':memory:' ? 'in memory' : `at ${options.path}`;
  const translate = (error: unknown): unknown =>
    isSqliteUnavailable(error)
      ? new ReadStoreUnavailableError(`SQLite read store ${where}: ${error.message} (${error.code})`)
      : error;

  return translatingErrors(translate, {
    async ensureCollection(spec) {
      assertOpen();
      createCollection(spec);
    },

    async dropCollection(name) {
      assertOpen();
      const state = collection(name);
      textChanged(state);
      if (!state) return;
      if (state.textTable) memoryText.dropped(state.textTable);
      db.transaction(() => {
        db.exec(`DROP TABLE IF EXISTS ${state.table}`);
        if (state.textTable) db.exec(`DROP TABLE IF EXISTS ${state.textTable}`);
        db.prepare('DELETE FROM _collections WHERE name = ?').run(name);
      })();
      collections.delete(name);
      statementCache.clear();
    },

    async get<T extends Doc>(name: string, id: string) {
      assertOpen();
      const state = collection(name);
      if (!state) return null;
      const row = statement(`SELECT doc FROM ${state.table} WHERE id = ?`).get(id) as
        { doc: string } | undefined;
      return row ? (JSON.parse(row.doc) as T) : null;
    },

    async getMany<T extends Doc>(name: string, ids: readonly string[]) {
      assertOpen();
      const state = collection(name);
      const unique = [...new Set(ids)];
      if (!state || unique.length === 0) return [];
      const found: T[] = [];
      // In pages: SQLite limits the number of bound parameters per statement.
      for (let start = 0; start < unique.length; start += 500) {
        const page = unique.slice(start, start + 500);
        const rows = statement(
          `SELECT doc FROM ${state.table} WHERE id IN (${page.map(() => '?').join(', ')})`,
        ).all(...page) as Array<{ doc: string }>;
        found.push(...parse<T>(rows));
      }
      return found;
    },

    async find<T extends Doc>(name: string, query: Parameters<ReadStore['find']>[1] = {}) {
      assertOpen();
      const state = collection(name);
      if (!state) return [];
      const where = whereClause(query.filter);
      const order = (query.sort ?? []).map(
        ([field, direction]) => `${fieldExpression(field)} ${direction === 1 ? 'ASC' : 'DESC'}`,
      );
      order.push('rid ASC');
      const sql = `SELECT doc FROM ${state.table} WHERE ${where.sql} ORDER BY ${order.join(', ')} ${LIMIT_BOUND} OFFSET ?`;
      return parse<T>(
        statement(sql).all(...where.params, query.limit ?? -1, query.skip ?? 0) as Array<{ doc: string }>,
      );
    },

    async count(name, filter) {
      assertOpen();
      const state = collection(name);
      if (!state) return 0;
      const where = whereClause(filter);
      return (
        statement(`SELECT count(*) AS n FROM ${state.table} WHERE ${where.sql}`).get(...where.params) as {
          n: number;
        }
      ).n;
    },

    async countBy(name, field, filter): Promise<GroupCount[]> {
      assertOpen();
      const state = collection(name);
      if (!state) return [];
      const where = whereClause(filter);
      const key = fieldExpression(field);
      const rows = statement(
        `SELECT ${key} AS value, json_type(doc, '$.${field}') AS type, count(*) AS count FROM ${state.table} WHERE ${where.sql} GROUP BY ${key}, json_type(doc, '$.${field}') IN ('true', 'false') ORDER BY count DESC, value`,
      ).all(...where.params) as Array<{ value: Scalar; type: string | null; count: number }>;
      return rows.map((row) => ({
        value:
          row.type === 'true'
            ? true
            : row.type === 'false'
              ? false
              : row.type === 'object' || row.type === 'array'
                ? null
                : row.value,
        count: row.count,
      }));
    },

    async search<T extends Doc>(
      name: string,
      text: string,
      searchOptions: Parameters<ReadStore['search']>[2] = {},
    ) {
      assertOpen();
      const state = collection(name);
      if (!state?.textTable) {
        if (state) throw new UnsupportedQueryError(`collection ${name} has no text fields`);
        return [];
      }
      const any = searchOptions.match === 'any';
      const found = searchTerms(text, normalize);
      if (found.length === 0) return [];
      const terms = any ? contentTerms(found, stopWords) : found;
      // Every term quoted (no FTS syntax from users gets through); in `all` mode the last one also
      // as a prefix.
      const match = any
        ? terms.map((term) => `"${term}"`).join(' OR ')
        : terms.map((term, i) => `"${term}"${i === terms.length - 1 ? '*' : ''}`).join(' AND ');
      const limit = searchOptions.limit ?? 20;
      const skip = searchOptions.skip ?? 0;
      const filtered = searchOptions.filter !== undefined && Object.keys(searchOptions.filter).length > 0;
      // Unfiltered, the page is ranked inside the full-text index and only its rows are joined to
      // their documents: joining every match first, then sorting, cost ~40 ms a query at 100k chunks
      // where a common word matches a quarter of them. Ordered by `bm25()` rather than by the `rank`
      // column, which is the same function but went through FTS5's sorted-cursor path: 1.7× slower
      // (p50 19 vs 11 ms over 300 queries at 100k chunks), with the same pages.
      // Match-any and unfiltered (what retrieval asks): the same page, without scoring every row of
      // the query's common terms where their weights cannot change it (MaxScore, ftsTopMatches.ts).
      if (any && !filtered && limit >= 0 && skip + limit <= MAX_TOP_MATCHES) {
        const fromMemory = memoryText.top(state.textTable, terms, skip + limit);
        const page = (
          fromMemory
            ? fromMemory.map((hit) => ({ rowid: hit.rowid, rank: -hit.score }))
            : topMatches.top(state.textTable, terms, skip + limit)
        ).slice(skip);
        if (page.length === 0) return [];
        const docs = new Map(
          (
            statement(
              `SELECT rid, doc FROM ${state.table} WHERE rid IN (${page.map(() => '?').join(', ')})`,
            ).all(...page.map((row) => row.rowid)) as Array<{ rid: number; doc: string }>
          ).map((row) => [row.rid, row.doc]),
        );
        return page.flatMap((row) => {
          const doc = docs.get(row.rowid);
          return doc === undefined ? [] : [{ doc: JSON.parse(doc) as T, score: -row.rank }];
        });
      }
      const where = whereClause(searchOptions.filter, 'c.doc');
      // Filtered, the full-text index drives (CROSS JOIN keeps it the outer loop): left to itself,
      // SQLite walked an index of the filter's field and probed FTS5 once per row — 4-20 s a
      // conversation search at 100k messages, where matching first takes milliseconds. With
      // `rankNewest`, only the newest matches that pass the filter are scored (FTS5 yields matches
      // in rowid order), so a term in most rows costs no more than a bounded set.
      const newest = searchOptions.rankNewest;
      const rows = (
        filtered && newest !== undefined
          ? statement(
              `SELECT c.doc AS doc, r.rank AS rank FROM
                 (SELECT t.rowid AS rid, bm25(${state.textTable}) AS rank FROM ${state.textTable} t CROSS JOIN ${state.table} c ON c.rid = t.rowid
                  WHERE ${state.textTable} MATCH ? AND ${where.sql} ORDER BY t.rowid DESC ${LIMIT_BOUND}) r
               CROSS JOIN ${state.table} c ON c.rid = r.rid ORDER BY r.rank, r.rid ${LIMIT_BOUND} OFFSET ?`,
            ).all(match, ...where.params, newest, limit, skip)
          : filtered
            ? statement(
                `SELECT c.doc AS doc, bm25(${state.textTable}) AS rank FROM ${state.textTable} t CROSS JOIN ${state.table} c ON c.rid = t.rowid
               WHERE ${state.textTable} MATCH ? AND ${where.sql}
               ORDER BY rank ${LIMIT_BOUND} OFFSET ?`,
              ).all(match, ...where.params, limit, skip)
            : statement(
                `SELECT c.doc AS doc, t.rank AS rank FROM
                 (SELECT rowid, bm25(${state.textTable}) AS rank FROM ${state.textTable} WHERE ${state.textTable} MATCH ? ORDER BY rank, rowid ${LIMIT_BOUND} OFFSET ?) t
               JOIN ${state.table} c ON c.rid = t.rowid ORDER BY t.rank, t.rowid`,
              ).all(match, limit, skip)
      ) as Array<{ doc: string; rank: number }>;
      return rows.map((row) => ({ doc: JSON.parse(row.doc) as T, score: -row.rank }));
    },

    settleTextIndexes: () => memoryText.settled(),
    textIndexHealth() {
      const { ready, building } = memoryText.status();
      return ready
        ? { healthy: true, reason: null }
        : { healthy: false, reason: `building the in-memory search index of ${building.join(', ')}` };
    },

    async write(operations) {
      assertOpen();
      if (operations.length === 0) return;
      try {
        applyAll.immediate(operations);
      } catch (error) {
        memoryText.rolledBack();
        throw error;
      }
      memoryText.committed();
    },

    async acquireLease(name, owner, ttlMs) {
      assertOpen();
      return takeLease.immediate(name, owner, Date.now(), ttlMs);
    },

    async releaseLease(name, owner) {
      assertOpen();
      expireLease.run(name, owner);
    },

    async readLease(name) {
      assertOpen();
      const row = selectLease.get(name);
      return row ? { name, owner: row.owner, epoch: row.epoch, expiresAt: row.expires_at } : null;
    },

    async scrub() {
      assertOpen();
      // secure_delete zeroed freed pages in the database file; the WAL still has older copies.
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
        if (result?.busy === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new ReadStoreUnavailableError(
        'the WAL could not be truncated (busy): deleted content may remain in it',
      );
    },

    async health() {
      if (closed) return { healthy: false, reason: 'read store is closed' };
      try {
        db.prepare('SELECT 1').get();
        return { healthy: true, reason: null };
      } catch (error) {
        return { healthy: false, reason: (error as Error).message };
      }
    },

    async close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  });
}

/**
 * `store` with every method's errors passed through `translate` (thrown or rejected): a disk that
 * is full or failing, or a lock held past the busy timeout, is the store unable to serve (a 503),
 * not a fault of the request.
 */
function translatingErrors<T extends object>(translate: (error: unknown) => unknown, store: T): T {
  const translated: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(store)) {
    if (typeof member !== 'function') {
      translated[name] = member;
      continue;
    }
    translated[name] = (...args: unknown[]): unknown => {
      let result: unknown;
      try {
        result = (member as (...parameters: unknown[]) => unknown).apply(store, args);
      } catch (error) {
        throw translate(error);
      }
      return result instanceof Promise
        ? result.catch((error: unknown) => {
            throw translate(error);
          })
        : result;
    };
  }
  return translated as T;
}
