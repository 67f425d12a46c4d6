import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ChatModel } from '../models/chatModel.js';
import type { Embedder } from '../models/embedder.js';
import type { Models } from '../models/fromConfig.js';
import type { Reranker } from '../models/reranker.js';

/** Seconds: from a fast route (a millisecond) to a long chat turn or ingestion (two minutes). */
const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export type ModelKind = 'embedder' | 'chat' | 'reranker';

/** What `/metrics` reports on scrape, read then from the process's stores (queue depth, projection lag). */
export interface MetricsSources {
  /** Tasks by status that are not finished: pending and running. */
  openTasks(): Promise<{ pending: number; running: number }>;
  /** Events each projection has still to apply: the log's head minus its position. */
  projectionLag(): Promise<Array<{ projection: string; events: number }>>;
}

/**
 * The process's Prometheus metrics (prom-client, on a registry of its own): request latency per
 * route, ingestion stage durations, model call latency and errors, rate-limit refusals, and on each
 * scrape the task queue's depth and the projections' lag, with Node's own process metrics.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'archivist_' });
  let sources: MetricsSources | null = null;

  const httpDuration = new Histogram({
    name: 'archivist_http_request_duration_seconds',
    help: 'HTTP requests by route template, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const ingestionStage = new Histogram({
    name: 'archivist_ingestion_stage_duration_seconds',
    help: 'Time each ingestion stage took (receive, detect, parse, clean, chunk, claim, embed, index)',
    labelNames: ['stage'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const modelDuration = new Histogram({
    name: 'archivist_model_request_duration_seconds',
    help: 'Calls of the models (embedder, chat model, reranker) by outcome',
    labelNames: ['kind', 'model', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const modelErrors = new Counter({
    name: 'archivist_model_errors_total',
    help: 'Model calls that failed, by the error type',
    labelNames: ['kind', 'model', 'error'] as const,
    registers: [registry],
  });
  const rateLimited = new Counter({
    name: 'archivist_rate_limit_refusals_total',
    help: 'Requests refused 429 by the per-user rate limits, by class',
    labelNames: ['class'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'archivist_tasks_open',
    help: 'Background tasks waiting (pending) or running: the queue depth',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      if (!sources) return;
      const open = await sources.openTasks();
      this.set({ status: 'pending' }, open.pending);
      this.set({ status: 'running' }, open.running);
    },
  });
  new Gauge({
    name: 'archivist_projection_lag_events',
    help: 'Events of the log each projection has still to apply',
    labelNames: ['projection'] as const,
    registers: [registry],
    async collect() {
      if (!sources) return;
      for (const { projection, events } of await sources.projectionLag()) this.set({ projection }, events);
    },
  });

  /** Starts timing a model call; its end says how it went, counting a failure by the error's name. */
  function modelCall(kind: ModelKind, model: string) {
    const end = modelDuration.startTimer({ kind, model });
    return {
      succeeded: () => end({ outcome: 'ok' }),
      failed(error: unknown): void {
        end({ outcome: 'error' });
        modelErrors.inc({ kind, model, error: (error as Error).name || 'Error' });
      },
    };
  }

  /** Times `call` (see `modelCall`); rethrows its failure. */
  async function timed<T>(kind: ModelKind, model: string, call: () => Promise<T>): Promise<T> {
    const timing = modelCall(kind, model);
    try {
      const result = await call();
      timing.succeeded();
      return result;
    } catch (error) {
      timing.failed(error);
      throw error;
    }
  }

  return {
    registry,
    /** Where the scrape-time gauges read from (set once the stores are open). */
    readFrom(from: MetricsSources): void {
      sources = from;
    },
    /** One HTTP request: `route` is the route's template (`POST /api/v1/upload`), or `unmatched`. */
    observeRequest(method: string, route: string, status: number, seconds: number): void {
      httpDuration.observe({ method, route, status: String(status) }, seconds);
    },
    /** The stages an ingestion went through, in milliseconds. */
    observeIngestion(timings: Partial<Record<string, number>>): void {
      for (const [stage, ms] of Object.entries(timings)) {
        if (typeof ms === 'number') ingestionStage.observe({ stage }, ms / 1000);
      }
    },
    rateLimitRefused(kind: string): void {
      rateLimited.inc({ class: kind });
    },
    /** The embedder, timed: each `embed` call. */
    embedder(embedder: Embedder): Embedder {
      return {
        ...embedder,
        probe: () => embedder.probe(),
        embed: (texts, options) => timed('embedder', embedder.name, () => embedder.embed(texts, options)),
      };
    },
    /** The chat model, timed: each completion, and each stream until it ends. */
    chatModel(model: ChatModel): ChatModel {
      return {
        ...model,
        probe: () => model.probe(),
        complete: (request) => timed('chat', model.name, () => model.complete(request)),
        async *stream(request) {
          const timing = modelCall('chat', model.name);
          try {
            yield* model.stream(request);
            timing.succeeded();
          } catch (error) {
            timing.failed(error);
            throw error;
          }
        },
      };
    },
    reranker(reranker: Reranker): Reranker {
      return {
        ...reranker,
        probe: () => reranker.probe(),
        rerank: (query, passages, options) =>
          timed('reranker', reranker.name, () => reranker.rerank(query, passages, options)),
      };
    },
    /** The exposition text and its content type. */
    async scrape(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** The configured models, each call timed and its failures counted. */
export function instrumentedModels(models: Models, metrics: Metrics): Models {
  return {
    embedder: metrics.embedder(models.embedder),
    chatModel: metrics.chatModel(models.chatModel),
    reranker: models.reranker ? metrics.reranker(models.reranker) : null,
  };
}
