import Router from '@koa/router';
import Koa from 'koa';
import type { Runtime } from '../runtime.js';
import { apiKeyAuth } from './apiKeyAuth.js';
import { docsRouter } from './docs.js';
import { errorHandler, notFound } from './errorHandler.js';
import { mountRoutes } from './mountRoutes.js';
import { buildOpenApi } from './openapi.js';
import { requestContext } from './requestContext.js';
import type { Route } from './route.js';
import { healthRoutes } from './retrieval/health.js';
import { parseRoutes } from './retrieval/parse.js';
import { taskRoutes } from './retrieval/tasks.js';

export const RETRIEVAL_PREFIX = '/api/v1';
export const ASSISTANT_ROUTE_PREFIX = '/api/method';

export type AppDeps = Pick<
  Runtime,
  | 'config'
  | 'log'
  | 'version'
  | 'health'
  | 'projectionProgress'
  | 'eventStore'
  | 'projections'
  | 'readModels'
  | 'tasks'
  | 'parser'
>;

export interface AppOptions {
  /** Extra Retrieval API routes (later issues, and tests). */
  retrievalRoutes?: readonly Route[];
  /** Assistant method API routes, paths like `/assistant.api.get_config`. */
  assistantRoutes?: readonly Route[];
}

/**
 * The HTTP application: both APIs, `/openapi.json`, `/docs` and `/redoc`. Middleware order:
 * request context (correlation id, logger) → error shapes → routers (auth, body parsing,
 * validation per route) → 404.
 */
export function createApp(deps: AppDeps, options: AppOptions = {}): Koa {
  const app = new Koa();
  app.silent = true;
  const retrievalRoutes: Route[] = [
    ...healthRoutes(deps),
    ...taskRoutes({
      tasks: deps.tasks,
      readModels: deps.readModels,
      eventStore: deps.eventStore,
    }),
    ...parseRoutes({ parser: deps.parser, maxUploadBytes: deps.config.maxUploadBytes }),
    ...(options.retrievalRoutes ?? []),
  ];
  const assistantRoutes = options.assistantRoutes ?? [];
  const limits = {
    maxJsonBytes: deps.config.maxJsonBytes,
    maxUploadBytes: deps.config.maxUploadBytes,
    readYourWrites: { waitFor: deps.projections.waitFor, timeoutMs: deps.config.readYourWritesTimeoutMs },
  };

  const retrieval = new Router({ prefix: RETRIEVAL_PREFIX });
  mountRoutes(retrieval, retrievalRoutes, { ...limits, authenticate: apiKeyAuth(deps.config.apiKeys) });
  const assistant = new Router({ prefix: ASSISTANT_ROUTE_PREFIX });
  mountRoutes(assistant, assistantRoutes, limits);

  let openapi: unknown = null;
  const describe = (): unknown =>
    (openapi ??= buildOpenApi(
      {
        title: 'Archivist',
        version: deps.version,
        description:
          'An AI assistant and a knowledge base an organisation can trust. Retrieval API under /api/v1; Assistant method API under /api/method/assistant.api.<endpoint>.',
      },
      [
        { prefix: RETRIEVAL_PREFIX, routes: retrievalRoutes, security: [{ ApiKeyAuth: [] }] },
        { prefix: ASSISTANT_ROUTE_PREFIX, routes: assistantRoutes, security: [] },
      ],
    ));

  const root = new Router();
  root.get('/', (ctx) => {
    ctx.body = {
      name: 'Archivist',
      version: deps.version,
      apis: { retrieval: RETRIEVAL_PREFIX, assistant: `${ASSISTANT_ROUTE_PREFIX}/assistant.api.<endpoint>` },
      docs: '/docs',
      redoc: '/redoc',
      openapi: '/openapi.json',
    };
  });
  const docs = docsRouter(describe);

  app.use(requestContext(deps.log));
  app.use(errorHandler(ASSISTANT_ROUTE_PREFIX));
  const routers = [root, docs, retrieval, assistant];
  for (const router of routers) app.use(router.routes());
  app.use(notFound(routers));
  return app;
}
