import type { KnowledgeUseCases } from '../../knowledge/knowledgeUseCases.js';
import { VECTORS_PROJECTION } from '../../knowledge/vectorProjector.js';
import { KNOWLEDGE } from '../../projections/knowledgeProjection.js';
import { TASKS } from '../../projections/tasksProjection.js';
import { defineRoute } from '../route.js';
import { collectionField, errorResponses } from './schemas.js';
import { taskCreatedSchema } from './taskCreated.js';
import { ingestionSchema } from './upload.js';

export interface ScrapeRouteDeps {
  knowledge: Pick<KnowledgeUseCases, 'scrape' | 'startScrape'>;
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
  const { knowledge } = deps;
  const options = (body: { timeout: number; skip_duplicates: boolean; collection: string }) => ({
    collection: body.collection,
    timeoutSeconds: body.timeout,
    skipDuplicates: body.skip_duplicates,
  });

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
          required: ['url', 'timeout', 'skip_duplicates', 'collection'],
          properties: { url, timeout, skip_duplicates: skipDuplicates, collection: collectionField },
        },
      },
      responses: { 200: { description: 'Ingestion result', schema: ingestionSchema }, ...errorResponses },
      async handle({ body, caller, signal }) {
        const { result, position } = await knowledge.scrape(body.url, options(body), caller, signal);
        return { body: result, position };
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
          required: ['urls', 'timeout', 'skip_duplicates', 'collection'],
          properties: {
            urls: { type: 'array', items: url, minItems: 1, maxItems: 50 },
            timeout,
            skip_duplicates: skipDuplicates,
            collection: collectionField,
          },
        },
      },
      responses: { 202: { description: 'The task', schema: taskCreatedSchema }, ...errorResponses },
      async handle({ body, caller }) {
        const { taskId, createdAt, position } = await knowledge.startScrape(body.urls, options(body), caller);
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
