import type { ModelProbe } from './embedder.js';

/**
 * Scores passages for a query, to reorder search candidates by relevance before they are cut to
 * top_k. A cross-encoder reads query and passage together, which the vector and lexical retrievers
 * do not; the local default is a cheap heuristic.
 */
export interface Reranker {
  /** Honest: the remote model id, or the local method. */
  readonly name: string;
  /**
   * One score per passage, in the passages' order; higher is more relevant. Scores compare only
   * within one call.
   */
  rerank(query: string, passages: readonly string[], options?: { signal?: AbortSignal }): Promise<number[]>;
  probe(): Promise<ModelProbe>;
}
