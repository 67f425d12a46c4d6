import { constants, openAsBlob } from 'node:fs';
import { access } from 'node:fs/promises';
import { basename } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { outcomeOfResult, updateOfTaskEvent } from './ingestUpdates.js';
import { serverSentEvents } from './serverSentEvents.js';
import {
  KnowledgeRequestError,
  KnowledgeUnavailableError,
  type AnswerWithCitations,
  type IngestOutcome,
  type IngestStart,
  type IngestUpdate,
  type KnowledgeClient,
  type Passage,
  type SearchOptions,
  type SearchResult,
} from './knowledgeClient.js';

export interface HttpKnowledgeClientOptions {
  /** The server's base URL (`http://host:8000`; a trailing `/api/v1` is allowed). */
  url: string;
  /** `key:secret` (a user's key pair) or a service key of API_KEYS; none when auth is off. */
  key: string | undefined;
  /** How long an added document may take to become readable before `progress` ends anyway. */
  readableWithinMs?: number;
}

/** Network failures that mean nothing is listening there, rather than one request going wrong. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Reconnections of a task's event stream that broke before the task ended. */
const MAX_RECONNECTS = 5;

/** The Retrieval API's base, `…/api/v1`, of what a person typed. */
export function apiBaseOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new KnowledgeUnavailableError(`--url must be an http(s) URL; got ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new KnowledgeUnavailableError(`--url must be an http(s) URL; got ${url}`);
  const path = parsed.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return `${parsed.origin}${path}/api/v1`;
}

/** The header that carries the key: a user's key pair as the Assistant API takes it, else a service key. */
function credentialsOf(key: string | undefined): Record<string, string> {
  if (!key) return {};
  return key.includes(':') ? { authorization: `token ${key}` } : { 'x-api-key': key };
}

/** One line for an API error answer: status, error type, the API's message. */
async function refusalOf(response: Response, what: string): Promise<Error> {
  const text = await response.text().catch(() => '');
  let type = '';
  let detail = text.trim().slice(0, 300) || response.statusText;
  try {
    const body = JSON.parse(text) as { error?: unknown; detail?: unknown };
    if (typeof body.error === 'string') type = body.error;
    if (typeof body.detail === 'string') detail = body.detail;
  } catch {
    // Not the API's JSON error (a proxy's page): its first characters say enough.
  }
  const message = `${what}: ${response.status}${type ? ` ${type}` : ''}: ${detail.replace(/\s+/g, ' ')}`;
  // Credentials refused: every request would be, whatever its input.
  if (response.status === 401 || (response.status === 403 && type === 'invalid_api_key'))
    return new KnowledgeUnavailableError(`${message} (check ARCHIVIST_KEY)`);
  return new KnowledgeRequestError(message, response.status);
}

function failureOf(error: unknown, base: string): Error {
  if (error instanceof KnowledgeUnavailableError || error instanceof KnowledgeRequestError) return error;
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  if (UNREACHABLE.has(code)) return new KnowledgeUnavailableError(`cannot reach ${base}: ${code}`);
  const reason = typeof cause?.message === 'string' ? cause.message : (error as Error).message;
  return new Error(`the request to ${base} failed: ${code ? `${code} ` : ''}${reason}`);
}

interface WirePassage {
  doc_id: string;
  title?: string;
  source: string;
  section?: string;
  section_path?: string[];
  page_start?: number | null;
  page_end?: number | null;
  excerpt?: { text?: string } | string;
}

function passageOf(wire: WirePassage, metadata: Partial<WirePassage> = {}): Passage {
  const merged = { ...wire, ...metadata };
  const excerpt = typeof merged.excerpt === 'string' ? merged.excerpt : (merged.excerpt?.text ?? '');
  return {
    docId: wire.doc_id,
    title: merged.title ?? '',
    source: wire.source,
    section: merged.section ?? '',
    sectionPath: merged.section_path ?? [],
    pageStart: merged.page_start ?? null,
    pageEnd: merged.page_end ?? null,
    excerpt,
  };
}

/** The knowledge base of a running server, through its Retrieval API (`/api/v1`). */
export function createHttpKnowledgeClient(options: HttpKnowledgeClientOptions): KnowledgeClient {
  const base = apiBaseOf(options.url);
  const credentials = credentialsOf(options.key);
  const readableWithinMs = options.readableWithinMs ?? 10_000;

  async function call(path: string, init: RequestInit, what: string): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        ...init,
        headers: { ...credentials, ...(init.headers as Record<string, string> | undefined) },
      });
    } catch (error) {
      throw failureOf(error, base);
    }
    if (response.ok) return response;
    throw await refusalOf(response, what);
  }

  async function json<T>(path: string, body: unknown, what: string): Promise<T> {
    const response = await call(
      path,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      what,
    );
    return (await response.json()) as T;
  }

  /** A refusal of one input (its type, its size, its fields) is its outcome, not the run's end. */
  async function started(start: () => Promise<{ task_id: string }>): Promise<IngestStart> {
    try {
      return { taskId: (await start()).task_id };
    } catch (error) {
      if (error instanceof KnowledgeUnavailableError) throw error;
      return { outcome: { status: 'failed', reason: (error as Error).message } };
    }
  }

  /** The outcome of a task whose events were all seen before (its event stream answered 204). */
  async function finishedTask(taskId: string): Promise<IngestOutcome> {
    const task = (await (await call(`/tasks/${taskId}`, {}, 'task')).json()) as {
      status: string;
      result: Record<string, unknown> | null;
      error: string | null;
    };
    if (task.status === 'completed') return outcomeOfResult(task.result);
    return { status: 'failed', reason: task.error ?? `the ingestion task was ${task.status}` };
  }

  /**
   * Read-your-writes for the next command: the task completes before the read models hold the
   * document; a HEAD of the document answers 200 once they do (bounded: it is stored either way).
   */
  async function readable(outcome: IngestOutcome): Promise<void> {
    if (outcome.status !== 'added') return;
    const deadline = Date.now() + readableWithinMs;
    while (Date.now() < deadline) {
      const response = await fetch(`${base}/documents/${encodeURIComponent(outcome.docId)}`, {
        method: 'HEAD',
        headers: credentials,
      }).catch(() => null);
      if (response?.status !== 404) return;
      await sleep(50);
    }
  }

  async function* progress(taskId: string): AsyncGenerator<IngestUpdate> {
    let lastEventId = 0;
    for (let reconnects = 0; ; reconnects += 1) {
      const response = await call(
        `/tasks/${encodeURIComponent(taskId)}/events`,
        {
          headers: {
            accept: 'text/event-stream',
            ...(lastEventId > 0 ? { 'last-event-id': String(lastEventId) } : {}),
          },
        },
        'task events',
      );
      // Finished, and every event seen: the task itself says how it ended.
      if (response.status === 204 || !response.body) {
        const outcome = await finishedTask(taskId);
        await readable(outcome);
        yield { kind: 'finished', outcome };
        return;
      }
      try {
        for await (const event of serverSentEvents(response.body)) {
          if (event.id !== null) lastEventId = Number(event.id) || lastEventId;
          const update = updateOfTaskEvent(event.event, JSON.parse(event.data) as Record<string, unknown>);
          if (!update) continue;
          if (update.kind === 'finished') {
            await readable(update.outcome);
            yield update;
            return;
          }
          yield update;
        }
      } catch (error) {
        // A broken stream is followed again after its last event; a few times, not without end.
        if (reconnects >= MAX_RECONNECTS) throw failureOf(error, base);
      } finally {
        await response.body.cancel().catch(() => undefined);
      }
      if (reconnects >= MAX_RECONNECTS)
        throw new Error(`the event stream of task ${taskId} kept ending before the task did`);
    }
  }

  return {
    async ingestFile(path, name, target) {
      let file: Blob;
      try {
        // openAsBlob's own error names no cause: ENOENT, EACCES … come from this check.
        await access(path, constants.R_OK);
        // Streamed from the disk as the request is sent: never whole in memory.
        file = await openAsBlob(path);
      } catch (error) {
        return { outcome: { status: 'failed', reason: (error as Error).message } };
      }
      return started(async () => {
        const form = new FormData();
        form.append('file', file, basename(name));
        if (name.includes('/')) form.append('path', name);
        if (target.collection) form.append('collection', target.collection);
        const response = await call('/upload/async', { method: 'POST', body: form }, `upload ${name}`);
        return (await response.json()) as { task_id: string };
      });
    },
    async ingestUrl(url, target) {
      return started(() =>
        json<{ task_id: string }>(
          '/scrape/async',
          { urls: [url], ...(target.collection ? { collection: target.collection } : {}) },
          `scrape ${url}`,
        ),
      );
    },
    progress,
    async search(query, searchOptions: SearchOptions): Promise<SearchResult[]> {
      const answer = await json<{
        results: Array<WirePassage & { score: number; metadata: Partial<WirePassage> }>;
      }>(
        '/search',
        {
          query,
          top_k: searchOptions.limit,
          ...(searchOptions.collection ? { filters: { collection: searchOptions.collection } } : {}),
        },
        'search',
      );
      return answer.results.map((result) => ({
        ...passageOf(result, result.metadata),
        score: result.score,
      }));
    },
    async ask(question, searchOptions: SearchOptions): Promise<AnswerWithCitations> {
      const answer = await json<{ answer: string; abstained?: boolean; sources: WirePassage[] }>(
        '/query',
        {
          question,
          top_k: searchOptions.limit,
          include_timing: false,
          ...(searchOptions.collection ? { filters: { collection: searchOptions.collection } } : {}),
        },
        'ask',
      );
      return {
        answer: answer.answer,
        abstained: answer.abstained ?? false,
        citations: answer.sources.map((source) => passageOf(source)),
      };
    },
    // Nothing to release: every request has ended (or its stream was cancelled) when its call returned.
    async close() {},
  };
}
