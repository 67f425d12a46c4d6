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
  /** Honest and stable: the model id (remote) or the local method; it keys cached vectors. */
  readonly name: string;
  readonly dimensions: number;
  /** Most texts per `embed` call the model takes; callers split larger batches. */
  readonly maxBatch: number;
  embed(
    texts: readonly string[],
    options: { kind: 'query' | 'passage'; signal?: AbortSignal },
  ): Promise<Float32Array[]>;
  probe(): Promise<ModelProbe>;
}
