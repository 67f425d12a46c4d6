import type Database from 'better-sqlite3';
import { LIMIT_BOUND } from '../sqliteLimit.js';

/** A row of an FTS5 table and its `bm25()` (lower is better). */
export interface RankedRow {
  rowid: number;
  rank: number;
}

export interface FtsTopMatches {
  /**
   * The `k` best rows matching any of `terms`, exactly as `MATCH "t1" OR "t2"… ORDER BY bm25(), rowid`
   * ranks them, without scoring every row that has a common term when it can be avoided.
   */
  top(table: string, terms: readonly string[], k: number): RankedRow[];
}

export interface FtsTopMatchesOptions {
  statement: (sql: string) => Database.Statement;
  /** Changes whenever the indexed text of `table` may have changed: its cached statistics go then. */
  version: (table: string) => string;
}

/** FTS5's `bm25()` (fts5_aux.c): k1 = 1.2, and an IDF of at most 0 counts as 1e-6. */
const K1 = 1.2;
const MIN_IDF = 1e-6;
/**
 * A round scores the rows of its essential terms; when they are more than this share of the rows
 * every term matches, the plain query is cheaper than the round and a possible fallback.
 */
const WORTHWHILE = 0.5;
/** Floating-point slack: FTS5 sums the phrases' parts in another order. */
const SLACK = 1 + 1e-9;

interface Stats {
  version: string;
  rows: number;
  documentFrequency: Map<string, number>;
}

const phrases = (terms: readonly string[]): string => terms.map((term) => `"${term}"`).join(' OR ');

/** SQLite's varint (big-endian, 7 bits a byte, the 9th byte whole), as FTS5 stores its totals. */
function readVarint(bytes: Uint8Array): number {
  let value = 0;
  for (let i = 0; i < 9 && i < bytes.length; i += 1) {
    const byte = bytes[i]!;
    if (i === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return value;
}

/**
 * Top-k BM25 for match-any queries by MaxScore (Turtle and Flood, 1995), inside FTS5. `bm25()` is a
 * sum of one part per phrase, and a phrase adds at most idf × (k1 + 1) to any row. Terms are sorted
 * by that bound; the rarest ("essential") ones are queried first, every phrase still scored, as two
 * queries that split their rows exactly: `(E) AND (C)` and `(E) NOT (C)`. Once the k-th score found
 * is at least the sum of the other terms' bounds, no row with only those terms can enter the page:
 * it is final, and the rows with only common terms — most of the matches, which made FTS5 score a
 * large part of the collection — were never scored. Otherwise one more term becomes essential, and
 * the plain query answers when none is left.
 */
export function createFtsTopMatches(options: FtsTopMatchesOptions): FtsTopMatches {
  const stats = new Map<string, Stats>();

  function statsOf(table: string): Stats {
    const version = options.version(table);
    let cached = stats.get(table);
    if (cached?.version !== version) {
      // FTS5's own row count (its "averages" record), which `bm25()` uses.
      const block = options.statement(`SELECT block FROM ${table}_data WHERE id = 1`).pluck().get() as
        Uint8Array | undefined;
      cached = { version, rows: block ? readVarint(block) : 0, documentFrequency: new Map() };
      stats.set(table, cached);
    }
    return cached;
  }

  function idf(table: string, counts: Stats, term: string): { idf: number; documentFrequency: number } {
    let df = counts.documentFrequency.get(term);
    if (df === undefined) {
      df = options
        .statement(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`)
        .pluck()
        .get(`"${term}"`) as number;
      counts.documentFrequency.set(term, df);
    }
    const value = Math.log((counts.rows - df + 0.5) / (df + 0.5));
    return { idf: value <= 0 ? MIN_IDF : value, documentFrequency: df };
  }

  return {
    top(table, terms, k) {
      const ranked = (match: string): RankedRow[] =>
        options
          .statement(
            `SELECT rowid, bm25(${table}) AS rank FROM ${table} WHERE ${table} MATCH ? ORDER BY rank, rowid ${LIMIT_BOUND}`,
          )
          .all(match, k) as RankedRow[];
      const occurrences = new Map<string, number>();
      for (const term of terms) occurrences.set(term, (occurrences.get(term) ?? 0) + 1);
      if (occurrences.size < 2 || k <= 0) return ranked(phrases(terms));

      const tableStats = statsOf(table);
      // A term that occurs twice in the query is two phrases: twice its part, twice its bound.
      const bounded = [...occurrences].map(([term, count]) => {
        const part = idf(table, tableStats, term);
        return {
          phrases: Array<string>(count).fill(term),
          bound: count * (K1 + 1) * part.idf,
          rows: part.documentFrequency,
        };
      });
      bounded.sort((a, b) => b.bound - a.bound);
      const restBound = (essential: number): number =>
        bounded.slice(essential).reduce((sum, term) => sum + term.bound, 0);
      const allRows = bounded.reduce((sum, term) => sum + term.rows, 0);
      let essential = 1;
      while (essential < bounded.length) {
        // Scoring the essential terms' rows must save enough to be worth a round that may fail.
        if (bounded.slice(0, essential).reduce((sum, term) => sum + term.rows, 0) > allRows * WORTHWHILE)
          break;
        const rare = phrases(bounded.slice(0, essential).flatMap((term) => term.phrases));
        const common = phrases(bounded.slice(essential).flatMap((term) => term.phrases));
        const rows = [...ranked(`(${rare}) AND (${common})`), ...ranked(`(${rare}) NOT (${common})`)]
          .sort((a, b) => a.rank - b.rank || a.rowid - b.rowid)
          .slice(0, k);
        const kth = rows[k - 1];
        if (kth && -kth.rank >= restBound(essential) * SLACK) return rows;
        // The k-th score only grows with more essential terms: skip the sets it cannot yet settle.
        essential += 1;
        while (kth && essential < bounded.length && -kth.rank < restBound(essential) * SLACK) essential += 1;
      }
      return ranked(phrases(terms));
    },
  };
}
