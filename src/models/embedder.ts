/** Health of a model as readiness reports it. */
export interface ModelProbe {
  healthy: boolean;
  reason: string | null;
}

/**
 * Turns texts into vectors whose cosine similarity reflects meaning. Vectors are L2-normalised, so
 * a dot product is the cosine. Queries and passages may be embedded differently (E5-style models
 * want a prefix or an input type): say which.
 */
export interface Embedder {
  /** Honest: the model id (remote) or the local method, as `/health/stats` reports it. */
  readonly name: string;
  /**
   * Which vectors are comparable: the embedding cache and the vector collection are keyed by it, so
   * a change of model, dimensions or query/passage convention builds a new collection beside the
   * old one instead of mixing vectors. Letters, digits, `-` and `_`, at most 40 characters.
   */
  readonly space: string;
  readonly dimensions: number;
  /** Most texts per `embed` call the model takes; callers split larger batches. */
  readonly maxBatch: number;
  /**
   * Whether its vectors are worth storing in the embedding cache (default true: a model's call
   * costs milliseconds to seconds a text). False for an embedder that computes a vector in less time
   * than storing one and reading it back costs: its vectors are handed over in memory only, and
   * computed again after a restart.
   */
  readonly worthStoring?: boolean;
  embed(
    texts: readonly string[],
    options: { kind: 'query' | 'passage'; signal?: AbortSignal },
  ): Promise<Float32Array[]>;
  probe(): Promise<ModelProbe>;
}
