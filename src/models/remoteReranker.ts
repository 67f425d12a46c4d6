import type { Logger } from '../log.js';
import { postJson, translateFetchError } from './httpJson.js';
import { ModelError } from './modelError.js';
import { cachedProbe, probePolicy } from './probe.js';
import { createRemoteCaller, type RemoteCallerOptions, type RetryPolicy } from './remoteCall.js';
import type { Reranker } from './reranker.js';

/**
 * The `/rerank` wire formats in use:
 * - `cohere` (Cohere, vLLM, Infinity, LocalAI): `{model, query, documents, top_n}` →
 *   `{results: [{index, relevance_score}]}`;
 * - `jina` (Jina AI, and servers copying it): the same request and answer under Jina's name (its
 *   answers may also echo the documents, which are not asked for);
 * - `tei` (Hugging Face Text Embeddings Inference): `{query, texts}` → `[{index, score}]`, no model.
 */
export type RerankFormat = 'cohere' | 'jina' | 'tei';

export interface RemoteRerankerOptions {
  /** The full endpoint, e.g. `https://api.cohere.com/v2/rerank` or `http://tei:8080/rerank`. */
  url: string;
  /** Sent as a bearer token when not empty. */
  apiKey: string;
  /** The model id (TEI serves one model and takes none: then it names the reranker only). */
  model: string;
  format: RerankFormat;
  /** Most passages per request: TEI refuses more than its `--max-client-batch-size` (32 by default). */
  batchSize?: number;
  policy: RetryPolicy;
  log?: Logger;
  sleep?: RemoteCallerOptions['sleep'];
  random?: RemoteCallerOptions['random'];
}

function wireRequest(format: RerankFormat, model: string, query: string, passages: readonly string[]) {
  if (format === 'tei') return { query, texts: passages, truncate: true, return_text: false };
  return { model, query, documents: passages, top_n: passages.length, return_documents: false };
}

/** `[index, score]` pairs of an answer, or a description of what is wrong with it. */
function readScores(format: RerankFormat, body: unknown): Array<[unknown, unknown]> | string {
  const results: unknown = format === 'tei' ? body : (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) {
    return format === 'tei'
      ? 'the answer is not a list of {index, score}'
      : 'the answer has no `results` list';
  }
  const field = format === 'tei' ? 'score' : 'relevance_score';
  return results.map((item: unknown) => {
    const record = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    return [record['index'], record[field]];
  });
}

/**
 * A Reranker calling a `/rerank` endpoint in one of the common wire formats, in batches, under the
 * shared retry policy. Every passage must come back scored exactly once; anything else is a
 * `bad_response` naming what is missing rather than a silently shuffled ranking.
 */
export function createRemoteReranker(options: RemoteRerankerOptions): Reranker {
  const { url, model, format } = options;
  const batchSize = Math.max(1, options.batchSize ?? 32);
  const callerOptions = {
    model,
    translate: translateFetchError,
    ...(options.log ? { log: options.log } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.random ? { random: options.random } : {}),
  };
  const caller = createRemoteCaller({ ...callerOptions, policy: options.policy });
  const prober = createRemoteCaller({ ...callerOptions, policy: probePolicy(options.policy) });
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};

  async function scoreBatch(
    using: typeof caller,
    query: string,
    passages: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<number[]> {
    const body = await using.call(
      'rerank',
      (attempt) =>
        postJson(url, wireRequest(format, model, query, passages), { headers, signal: attempt.signal }),
      signal,
    );
    const bad = (why: string): ModelError =>
      new ModelError('bad_response', `${model}: rerank failed: ${why}`);
    const pairs = readScores(format, body);
    if (typeof pairs === 'string') throw bad(pairs);
    const scores = new Array<number | undefined>(passages.length).fill(undefined);
    for (const [index, score] of pairs) {
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= passages.length) {
        throw bad(`result index ${JSON.stringify(index)} is not one of the ${passages.length} passages`);
      }
      if (typeof score !== 'number' || !Number.isFinite(score)) {
        throw bad(`passage ${index} has no numeric score`);
      }
      if (scores[index] !== undefined) throw bad(`passage ${index} is scored twice`);
      scores[index] = score;
    }
    const missing = scores.flatMap((score, index) => (score === undefined ? [index] : []));
    if (missing.length > 0) throw bad(`${missing.length} of ${passages.length} passages came back unscored`);
    return scores as number[];
  }

  return {
    name: model,
    async rerank(query, passages, rerankOptions = {}) {
      const scores: number[] = [];
      for (let start = 0; start < passages.length; start += batchSize) {
        const batch = passages.slice(start, start + batchSize);
        scores.push(...(await scoreBatch(caller, query, batch, rerankOptions.signal)));
      }
      return scores;
    },
    // No rerank server lists its models the same way: one tiny pair proves it answers in our format.
    probe: cachedProbe(async () => {
      await scoreBatch(prober, 'readiness probe', ['readiness probe'], undefined);
      return null;
    }),
  };
}
