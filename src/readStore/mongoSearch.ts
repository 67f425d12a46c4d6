import type { Db, Document } from 'mongodb';
import { MongoServerError } from 'mongodb';
import type { Logger } from '../log.js';
import { SEARCH_FIELD, decodeDoc } from './mongoDocuments.js';
import type { ServerProfile } from './mongoProfile.js';
import type { StoredDoc, StoredSpec } from './mongoWrites.js';
import { allTermsClauses, anyTermClauses, scoreCandidates, scoringProjection } from './mongoText.js';
import type { Doc, SearchHit } from './readStore.js';
import { contentTerms, searchTerms } from '../text/searchTerms.js';
import { porterStem } from '../text/porterStemmer.js';

export interface MongoSearchOptions {
  /** The current database handle (the connection may replace its client). */
  db: () => Db;
  log: Logger;
  fold: (text: string) => string;
  /** Folded like the terms; left out of `any` queries that have other terms. */
  stopWords: ReadonlySet<string>;
  /** False: never use `$text`, even on collections that have a text index. */
  useTextIndex: boolean;
  maxCandidates: number;
  profile: () => Promise<ServerProfile>;
}

/** Documents to skip, and how many to return at most (undefined: all). */
export interface Page {
  skip: number;
  limit: number | undefined;
}

export type MongoSearch = <T extends Doc>(
  name: string,
  spec: StoredSpec,
  text: string,
  filter: Document,
  page: Page,
  match?: 'all' | 'any',
) => Promise<Array<SearchHit<T>>>;

// Not a possible document key: real keys containing `%` are stored escaped.
const SCORE = '%score';

/**
 * Full-text search with two methods that return the same documents:
 * - `$text` on a MongoDB text index, ranked by the server's text score. A text index has no prefix
 *   matching, so the last term (a prefix) is matched on the term lists, and only queries with at
 *   least one whole term use it (that term makes every match a `$text` match too).
 * - the terms method, for servers without text indexes (FerretDB) and prefix-only queries: every term
 *   required (on the indexed term lists where they exist, else by regular expressions over each
 *   field's normalised terms), the candidates scored with BM25 in code, then the page kept.
 */
export function createMongoSearch(options: MongoSearchOptions): MongoSearch {
  const { db, log } = options;

  async function withTextIndex(
    name: string,
    fieldCount: number,
    terms: string[],
    filter: Document,
    page: Page,
    any: boolean,
  ): Promise<Document[]> {
    // `$text` alone matches any term; `all` adds a clause per term.
    const query = {
      ...filter,
      $text: { $search: terms.join(' ') },
      ...(any ? {} : { $and: allTermsClauses(terms, fieldCount, true) }),
    };
    return db()
      .collection(name)
      .find(query, {
        projection: { [SEARCH_FIELD]: 0, [SCORE]: { $meta: 'textScore' } },
        sort: { [SCORE]: { $meta: 'textScore' }, _id: 1 },
        skip: page.skip,
        ...(page.limit ? { limit: page.limit } : {}),
      })
      .toArray();
  }

  async function withTerms(
    name: string,
    fieldCount: number,
    termLists: boolean,
    terms: string[],
    filter: Document,
    page: Page,
    any: boolean,
  ): Promise<Document[]> {
    const collection = db().collection(name);
    const matching = any
      ? { $or: anyTermClauses(terms, fieldCount, termLists) }
      : { $and: allTermsClauses(terms, fieldCount, termLists) };
    // Where every query scans the collection anyway (FerretDB), one pass with whole documents beats
    // a second scan for the page; elsewhere candidates are small and the page is fetched by id.
    const { scans } = await options.profile();
    const candidates = await collection
      .find(
        { ...filter, ...matching },
        { limit: options.maxCandidates + 1, ...(scans ? {} : { projection: scoringProjection(fieldCount) }) },
      )
      .toArray();
    if (candidates.length > options.maxCandidates) {
      log.warn(
        { collection: name, terms, scored: options.maxCandidates },
        'search matched more documents than are scored; ranking covers the first ones only',
      );
      candidates.length = options.maxCandidates;
    }
    const ranked = scoreCandidates(candidates, terms, fieldCount, !any);
    const wanted = ranked.slice(page.skip, page.limit === undefined ? undefined : page.skip + page.limit);
    if (wanted.length === 0) return [];
    const rows = scans
      ? candidates
      : await db()
          .collection<StoredDoc>(name)
          .find({ _id: { $in: wanted.map((hit) => hit.id) } }, { projection: { [SEARCH_FIELD]: 0 } })
          .toArray();
    const byId = new Map(rows.map((row) => [String(row['_id']), row]));
    // A document deleted between the two reads is simply left out.
    return wanted.flatMap((hit) => {
      const row = byId.get(hit.id);
      return row ? [{ ...row, [SCORE]: hit.score }] : [];
    });
  }

  return async <T extends Doc>(
    name: string,
    spec: StoredSpec,
    text: string,
    filter: Document,
    page: Page,
    match: 'all' | 'any' = 'all',
  ): Promise<Array<SearchHit<T>>> => {
    const any = match === 'any';
    // Folded and stemmed like indexed text; stop words are compared before stemming, as written.
    const found = searchTerms(text, options.fold);
    if (found.length === 0 || page.limit === 0) return [];
    const terms = (any ? contentTerms(found, options.stopWords) : found).map(porterStem);
    const fieldCount = spec.textFields.length;
    let rows: Document[] | null = null;
    if (spec.textIndex && options.useTextIndex && (terms.length > 1 || any)) {
      try {
        rows = await withTextIndex(name, fieldCount, terms, filter, page, any);
        log.debug({ collection: name, method: 'textIndex' }, 'search');
      } catch (error) {
        // IndexNotFound: the index went away (dropped by hand); the terms method still answers.
        if (!(error instanceof MongoServerError && error.code === 27)) throw error;
        log.warn({ collection: name, reason: error.message }, 'text index missing: search matches terms');
      }
    }
    if (!rows) {
      rows = await withTerms(name, fieldCount, spec.textIndex, terms, filter, page, any);
      log.debug({ collection: name, method: 'terms' }, 'search');
    }
    return rows.map((row) => {
      const { [SCORE]: score, ...stored } = row;
      return { doc: decodeDoc<T>(stored), score: Number(score) };
    });
  };
}
