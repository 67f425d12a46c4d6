import type { Document } from 'mongodb';
import { valueAt } from './filter.js';
import { SEARCH_FIELD } from './mongoDocuments.js';
import { stemmedTokens } from '../text/textTokens.js';
import type { Doc } from './readStore.js';

/**
 * What one text field of a document contributes to search. A plain string keeps documents small:
 * FerretDB stores a type for every array element and decodes every document it scans, so arrays of
 * terms made scans 4–8× slower there (measured).
 */
export interface FieldTerms {
  /** The field's terms, normalised and stemmed, in order, separated by single spaces. */
  s: string;
  /** Its distinct terms, only in collections with a MongoDB text index (multikey-indexed there). */
  t?: string[];
}

/** Per declared text field (`f0`, `f1`… in declaration order), its terms. */
export type SearchData = Record<string, FieldTerms>;

export interface ScoredId {
  id: string;
  score: number;
}

const BM25_K1 = 1.2;
const BM25_B = 0.75;

const fieldKey = (index: number): string => `f${index}`;
const fieldPath = (index: number, part: 's' | 't'): string => `${SEARCH_FIELD}.${fieldKey(index)}.${part}`;

function fieldTerms(value: unknown, fold: (text: string) => string, withIndex: boolean): FieldTerms | null {
  if (typeof value !== 'string') return null;
  const tokens = stemmedTokens(fold(value));
  if (tokens.length === 0) return null;
  // The same string feeds a MongoDB text index (language "none"): its tokenizer sees our stems, so
  // both search methods stem alike, and as the embedded store's porter tokenizer does.
  const entry: FieldTerms = { s: tokens.join(' ') };
  if (withIndex) entry.t = [...new Set(tokens)];
  return entry;
}

/** The search data of a whole document. */
export function searchData(
  doc: Doc,
  fields: readonly string[],
  fold: (text: string) => string,
  withIndex: boolean,
): SearchData {
  const data: SearchData = {};
  fields.forEach((field, index) => {
    const entry = fieldTerms(valueAt(doc, field), fold, withIndex);
    if (entry) data[fieldKey(index)] = entry;
  });
  return data;
}

/**
 * `$set`/`$unset` of the search data touched by a patch of top-level fields: each field's terms are
 * stored separately, so a patch never needs to read the document it changes.
 */
export function patchSearchData(
  set: Record<string, unknown>,
  fields: readonly string[],
  fold: (text: string) => string,
  withIndex: boolean,
): { set: Record<string, FieldTerms>; unset: string[] } {
  const update: { set: Record<string, FieldTerms>; unset: string[] } = { set: {}, unset: [] };
  fields.forEach((field, index) => {
    const top = field.split('.')[0] ?? field;
    if (!Object.hasOwn(set, top)) return;
    const entry = fieldTerms(valueAt({ [top]: set[top] }, field), fold, withIndex);
    const path = `${SEARCH_FIELD}.${fieldKey(index)}`;
    if (entry) update.set[path] = entry;
    else update.unset.push(path);
  });
  return update;
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Documents where some text field has `term` (or, when `prefix`, a term starting with it): on the
 * indexed term lists where the collection has them, else by a regular expression over the terms.
 */
function termClause(term: string, prefix: boolean, fieldCount: number, termLists: boolean): Document {
  const match = termLists
    ? prefix
      ? { $regex: `^${escapeRegex(term)}` }
      : term
    : { $regex: `(?:^| )${escapeRegex(term)}${prefix ? '' : '(?: |$)'}` };
  const perField = Array.from({ length: fieldCount }, (_, index) => ({
    [fieldPath(index, termLists ? 't' : 's')]: match,
  }));
  return perField.length === 1 ? perField[0]! : { $or: perField };
}

/** Every term required; the last one as a prefix. */
export function allTermsClauses(
  terms: readonly string[],
  fieldCount: number,
  termLists: boolean,
): Document[] {
  return terms.map((term, index) => termClause(term, index === terms.length - 1, fieldCount, termLists));
}

/** Clauses matching a document with any of the whole terms (no prefix): for `$or`. */
export function anyTermClauses(terms: readonly string[], fieldCount: number, termLists: boolean): Document[] {
  return terms.map((term) => termClause(term, false, fieldCount, termLists));
}

/** Projection of what scoring needs. */
export function scoringProjection(fieldCount: number): Document {
  return Object.fromEntries(Array.from({ length: fieldCount }, (_, index) => [fieldPath(index, 's'), 1]));
}

/** Key and weights of the MongoDB text index over the pre-tokenised copies. */
export function textIndexSpec(fieldCount: number): {
  key: Record<string, 'text'>;
  weights: Record<string, number>;
} {
  const paths = Array.from({ length: fieldCount }, (_, index) => fieldPath(index, 's'));
  return {
    key: Object.fromEntries(paths.map((path) => [path, 'text' as const])),
    weights: Object.fromEntries(paths.map((path) => [path, 1])),
  };
}

/** Paths to index in collections that have term lists. */
export function termListPaths(fieldCount: number): string[] {
  return Array.from({ length: fieldCount }, (_, index) => fieldPath(index, 't'));
}

/**
 * BM25 over all text fields taken together, best first (ties by id). The last term counts every
 * term it is a prefix of. Lengths are normalised against the candidates' average length. No inverse
 * document frequency: every candidate has every term, so it would only weigh terms against each
 * other, which MongoDB's text score does not do either, and on FerretDB each count is a table scan.
 */
export function scoreCandidates(
  candidates: readonly Document[],
  terms: readonly string[],
  fieldCount: number,
  lastIsPrefix = true,
): ScoredId[] {
  const last = lastIsPrefix ? terms.length - 1 : -1;
  const rows = candidates.map((candidate) => {
    const data = (candidate[SEARCH_FIELD] ?? {}) as SearchData;
    const frequencies = terms.map(() => 0);
    let length = 0;
    for (let index = 0; index < fieldCount; index += 1) {
      const text = data[fieldKey(index)]?.s;
      if (!text) continue;
      for (const token of text.split(' ')) {
        length += 1;
        terms.forEach((term, position) => {
          if (token === term || (position === last && token.startsWith(term))) frequencies[position]! += 1;
        });
      }
    }
    return { id: String(candidate['_id']), frequencies, length };
  });
  const averageLength = Math.max(
    1,
    rows.reduce((sum, row) => sum + row.length, 0) / Math.max(1, rows.length),
  );
  // Document frequencies among the candidates: a term every candidate has (all of them, when every
  // term is required) weighs the same for all; a rare one outweighs a common one in `any` mode.
  const idf = terms.map((_, position) => {
    const df = rows.filter((row) => row.frequencies[position]! > 0).length;
    return Math.log(1 + (rows.length - df + 0.5) / (df + 0.5));
  });
  return rows
    .map(({ id, frequencies, length }) => {
      const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / averageLength);
      return {
        id,
        score: frequencies.reduce(
          (score, tf, position) => score + (idf[position]! * (tf * (BM25_K1 + 1))) / (tf + norm),
          0,
        ),
      };
    })
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
