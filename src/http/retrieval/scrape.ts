import type { Caller } from '../../commands/context.js';
import type { TaskCommands } from '../../commands/aggregates.js';
import type { EventStore } from '../../eventStore/eventStore.js';
import { awaitTask, startGuard, type WorkQueues } from '../../knowledge/awaitTask.js';
import { SCRAPE_JOB, type ScrapeTaskInput } from '../../knowledge/scrapeJob.js';
import { VECTORS_PROJECTION } from '../../knowledge/vectorProjector.js';
import { KNOWLEDGE } from '../../projections/knowledgeProjection.js';
import { TASKS } from '../../projections/tasksProjection.js';
import { defineRoute } from '../route.js';
import { errorResponses } from './schemas.js';
import { taskCreatedSchema } from './taskCreated.js';
import { ingestionSchema } from './upload.js';
import { createTask } from '../../commands/newTask.js';

export interface ScrapeRouteDeps {
  tasks: TaskCommands;
  eventStore: Pick<EventStore, 'subscribeToStream'>;
  workQueues: WorkQueues;
}

const url = { type: 'string', minLength: 1, maxLength: 2_048, pattern: '^[hH][tT][tT][pP][sS]?://' } as const;
const timeout = {
  type: 'integer',
  minimum: 5,
  maximum: 120,
  default: 30,
  description: 'Seconds allowed for fetching each URL',
} as const;
const skipDuplicates = {
  type: 'boolean',
  default: true,
  description: 'Skip a page whose URL or content is already stored',
} as const;

export function scrapeRoutes(deps: ScrapeRouteDeps) {
  async function start(
    urls: string[],
    fields: { timeout: number; skip_duplicates: boolean },
    caller: Caller,
  ) {
    const input: ScrapeTaskInput = {
      urls,
      timeoutSeconds: fields.timeout,
      skipDuplicates: fields.skip_duplicates,
      actorId: caller.actorId,
      correlationId: caller.correlationId,
    };
    const created = await createTask(deps.tasks, SCRAPE_JOB, { ...input }, caller);
    return {
      taskId: created.taskId,
      createdAt: created.appended[0]?.metadata.now ?? new Date().toISOString(),
      position: created.position,
    };
  }

  return [
    defineRoute({
      method: 'post',
      path: '/scrape',
      operationId: 'scrape',
      summary: 'Fetch a web page (or a document by URL), parse and store it',
      description:
        'Private, loopback, link-local and metadata addresses are refused (after DNS resolution and on every redirect) unless SCRAPE_ALLOWED_HOSTS lets them through. A page that cannot be fetched or parsed answers 200 with success false and the reason.',
      tags: ['Scrape'],
      readAfterWrite: [TASKS, KNOWLEDGE, VECTORS_PROJECTION],
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          required: ['url', 'timeout', 'skip_duplicates'],
          properties: { url, timeout, skip_duplicates: skipDuplicates },
        },
      },
      responses: { 200: { description: 'Ingestion result', schema: ingestionSchema }, ...errorResponses },
      async handle({ body, caller, signal }) {
        const { taskId } = await start([body.url], body, caller);
        const finished = await awaitTask(deps.eventStore, taskId, signal, startGuard(deps, taskId, caller));
        const result = (finished.result?.['results'] as Array<Record<string, unknown>> | undefined)?.[0];
        return {
          body: result ?? {
            success: false,
            url: body.url,
            title: body.url,
            doc_id: null,
            chunks_added: 0,
            chunks_updated: 0,
            chunks_skipped: 0,
            error: finished.error ?? `The scrape task was ${finished.status}`,
            is_duplicate: false,
            duplicate_type: null,
            existing_doc_id: null,
            existing_doc_title: null,
            duplicate_message: null,
          },
          position: finished.position,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/scrape/async',
      operationId: 'scrapeAsync',
      summary: 'Scrape 1-50 URLs in the background',
      description:
        "Answers at once with a task; its progress moves URL by URL, and its result holds urls_processed, successful, failed, total_chunks_added and each URL's ingestion result (results).",
      tags: ['Scrape'],
      readAfterWrite: [TASKS],
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          required: ['urls', 'timeout', 'skip_duplicates'],
          properties: {
            urls: { type: 'array', items: url, minItems: 1, maxItems: 50 },
            timeout,
            skip_duplicates: skipDuplicates,
          },
        },
      },
      responses: { 202: { description: 'The task', schema: taskCreatedSchema }, ...errorResponses },
      async handle({ body, caller }) {
        const { taskId, createdAt, position } = await start(body.urls, body, caller);
        return {
          status: 202,
          // The task's read model holds it before the answer: the client's next GET /tasks/{id} finds it.
          position,
          body: {
            task_id: taskId,
            status: 'pending',
            message: `Scraping ${body.urls.length} URL(s)`,
            created_at: createdAt,
          },
        };
      },
    }),
  ];
}
