import { setImmediate as yieldToEvents } from 'node:timers/promises';
import { MemoryTextIndex, type MemoryHit } from './memoryTextIndex.js';
import { porterStem } from '../text/porterStemmer.js';
import { foldCase, foldedWords } from '../text/textTokens.js';

/** Rows read per step of a build, between which the event loop runs. */
const BUILD_PAGE = 500;

interface Entry {
  index: MemoryTextIndex;
  ready: boolean;
  /** The database's `data_version` the index reflects: another connection's commit changes it. */
  dataVersion: number;
}

export interface MemoryTextIndexesDeps {
  /** Rows of a text table after `rowid`, in rowid order: their text columns, as indexed. */
  rowsAfter(table: string, rowid: number, limit: number): Array<{ rowid: number; values: string[] }>;
  /** `PRAGMA data_version`: changes when another connection commits. */
  dataVersion(): number;
  onError(error: unknown): void;
}

/**
 * Stems of query words seen, bounded (rows' words are stemmed once each by their index's table of
 * words, see MemoryTextIndex.setText).
 */
const STEM_CACHE_LIMIT = 50_000;
const stems = new Map<string, string>();

function stemOf(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    stem = porterStem(word);
    if (stems.size >= STEM_CACHE_LIMIT) stems.clear();
    stems.set(word, stem);
  }
  return stem;
}

/** A query's stemmed tokens, repeats kept. */
const tokensOf = (values: readonly string[]): string[] =>
  values.flatMap((value) => foldedWords(foldCase(value)).map(stemOf));

function indexRow(index: MemoryTextIndex, rowid: number, values: readonly string[]): void {
  index.setText(rowid, values.map(foldCase), porterStem);
}

/**
 * In-memory copies of the SQLite store's text tables that match-any searches read (see
 * memoryTextIndex.ts). A copy is built on a table's first such search, in steps that let the event
 * loop run (FTS5 answers meanwhile), then kept up to date by this connection's own writes, applied
 * when their transaction commits. A commit by another connection (a CLI rebuild, a second process)
 * cannot be followed: the copy is dropped and built again.
 */
export function createMemoryTextIndexes(deps: MemoryTextIndexesDeps) {
  const entries = new Map<string, Entry>();
  let pending: Array<{ table: string; rowid: number; values: readonly string[] | null }> = [];

  async function build(table: string, entry: Entry): Promise<void> {
    let after = 0;
    for (;;) {
      if (entries.get(table) !== entry) return;
      if (deps.dataVersion() !== entry.dataVersion) {
        entries.delete(table);
        return;
      }
      const rows = deps.rowsAfter(table, after, BUILD_PAGE);
      for (const row of rows) indexRow(entry.index, row.rowid, row.values);
      if (rows.length < BUILD_PAGE) break;
      after = rows.at(-1)!.rowid;
      await yieldToEvents();
    }
    entry.ready = true;
  }

  /** The table's copy, a fresh one building when there is none or another connection wrote. */
  function current(table: string): Entry {
    const version = deps.dataVersion();
    let entry = entries.get(table);
    if (entry && entry.dataVersion !== version) {
      entries.delete(table);
      entry = undefined;
    }
    if (entry) return entry;
    const building: Entry = { index: new MemoryTextIndex(), ready: false, dataVersion: version };
    entries.set(table, building);
    build(table, building).catch((error: unknown) => {
      if (entries.get(table) === building) entries.delete(table);
      deps.onError(error);
    });
    return building;
  }

  return {
    /** A row's text changed (`values`) or went (`null`) in the open transaction. */
    written(table: string, rowid: number, values: readonly string[] | null): void {
      if (entries.has(table)) pending.push({ table, rowid, values });
    },
    committed(): void {
      for (const { table, rowid, values } of pending) {
        const entry = entries.get(table);
        if (!entry) continue;
        if (values === null) entry.index.delete(rowid);
        else indexRow(entry.index, rowid, values);
      }
      pending = [];
    },
    rolledBack(): void {
      pending = [];
    },
    dropped(table: string): void {
      entries.delete(table);
    },
    /** The copy of `table`, started (built in the background) when there is none or it is stale. */
    prepare(table: string): void {
      current(table);
    },
    /**
     * The top `k` rows of `table` for any of `terms` (already normalised), or null while its copy
     * is not ready (the caller asks FTS5): the first call starts the copy's build.
     */
    top(table: string, terms: readonly string[], k: number): MemoryHit[] | null {
      const entry = current(table);
      if (!entry.ready) return null;
      return entry.index.top(tokensOf(terms), k);
    },
    /** Whether every copy is ready, and which are still being built. */
    status(): { ready: boolean; building: string[] } {
      const building = [...entries].filter(([, entry]) => !entry.ready).map(([table]) => table);
      return { ready: building.length === 0, building };
    },
    /** Resolves when every copy being built is ready (tests, benchmarks). */
    async settled(): Promise<void> {
      while ([...entries.values()].some((entry) => !entry.ready)) await yieldToEvents();
    },
  };
}
