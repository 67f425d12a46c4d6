import { join } from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import type { Runtime } from '../runtime.js';
import { apiKeyAuth, guardPrefixes } from './apiKeyAuth.js';
import { assistantAuth, authorizationCheck, readerOf, sessionPrincipal } from './assistant/auth.js';
import { CONSOLE_PATH, prefersHtml, serveConsole } from './console.js';
import { actorIdOf } from '../users/users.js';
import { assistantApiRoutes } from './assistant/routes.js';
import { rateLimiting } from './assistant/rateLimit.js';
import { createMemoryRateLimiter } from '../rateLimit/memoryRateLimiter.js';
import { createJwtVerifier } from '../users/jwt.js';
import { mountDocs } from './docs.js';
import { assistantErrorSchema, errorHandler, notFound } from './errorHandler.js';
import { mountRoutes, serveFixedRoutes, type FixedRoutes } from './mountRoutes.js';
import { documentRoutes } from './retrieval/documents.js';
import { scrapeRoutes } from './retrieval/scrape.js';
import { searchRoutes } from './retrieval/search.js';
import { uploadRoutes } from './retrieval/upload.js';
import { buildOpenApi } from './openapi.js';
import { openaiErrorSchema } from './openai/openaiError.js';
import { openaiRoutes } from './openai/openaiRoutes.js';
import { MCP_PATH, mcpEndpoint, mcpErrors } from './mcp/mcpRoutes.js';
import { CONVERSATIONS } from '../projections/conversationsProjection.js';
import { requestContext } from './requestContext.js';
import { requestMetrics } from './requestMetrics.js';
import { METRICS_PATH, serveMetrics } from './metricsApp.js';
import type { Route } from './route.js';
import { eventRoutes } from './retrieval/events.js';
import { healthRoutes } from './retrieval/health.js';
import { errorSchema } from './retrieval/schemas.js';
import { parseRoutes } from './retrieval/parse.js';
import { taskRoutes } from './retrieval/tasks.js';

const RETRIEVAL_PREFIX = '/api/v1';
const ASSISTANT_ROUTE_PREFIX = '/api/method';
/** Where OpenAI's clients find the chat completions wire (their `baseURL` ends in /v1). */
const OPENAI_PREFIX = '/v1';

/** Health probes, which load balancers call every few seconds: logged at debug, not info. */
const QUIET_PATHS: ReadonlySet<string> = new Set([
  `${RETRIEVAL_PREFIX}/health`,
  `${RETRIEVAL_PREFIX}/health/ready`,
  METRICS_PATH,
]);

/** Where uploads wait while their request runs (swept at start-up: a killed process leaves some). */
export const uploadDir = (dataDir: string): string => join(dataDir, 'tmp');

export type AppDeps = Pick<
  Runtime,
  | 'config'
  | 'log'
  | 'version'
  | 'health'
  | 'projectionProgress'
  | 'behind'
  | 'bus'
  | 'eventStore'
  | 'projections'
  | 'readModels'
  | 'tasks'
  | 'parser'
  | 'knowledge'
  | 'library'
  | 'users'
  | 'sessions'
  | 'conversations'
  | 'tools'
  | 'chat'
  | 'rateLimits'
  | 'settings'
  | 'onboarding'
  | 'metrics'
>;

export interface AppOptions {
  /** Extra Retrieval API routes (later issues, and tests). */
  retrievalRoutes?: readonly Route[];
  /** Assistant method API routes, paths like `/assistant.api.get_config`. */
  assistantRoutes?: readonly Route[];
  /** The web console's build (default: `dist/console` of the package). */
  consoleDir?: string;
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
      sseKeepAliveMs: deps.config.sseKeepAliveMs,
    }),
    ...parseRoutes({
      parser: deps.parser,
      maxUploadBytes: deps.config.maxUploadBytes,
      sseKeepAliveMs: deps.config.sseKeepAliveMs,
    }),
    ...eventRoutes({ eventStore: deps.eventStore, sseKeepAliveMs: deps.config.sseKeepAliveMs }),
    ...searchRoutes({ knowledge: deps.library }),
    ...documentRoutes({ knowledge: deps.library, readModels: deps.readModels }),
    ...scrapeRoutes({ knowledge: deps.library }),
    ...uploadRoutes({ knowledge: deps.library, maxFilesPerBulk: deps.config.uploadMaxFiles }),
    ...(options.retrievalRoutes ?? []),
  ];
  const assistantRoutes = [
    ...assistantApiRoutes({
      config: deps.config,
      version: deps.version,
      users: deps.users,
      sessions: deps.sessions,
      conversations: deps.conversations,
      tools: deps.tools,
      chat: deps.chat,
      parser: deps.parser,
      settings: deps.settings,
      onboarding: deps.onboarding,
    }),
    ...(options.assistantRoutes ?? []),
  ];
  const verifyJwt = deps.config.jwt ? createJwtVerifier(deps.config.jwt) : null;
  const principalOfHeader = authorizationCheck({ users: deps.users, verifyJwt });
  const userCredentials = {
    async check(header: string) {
      const principal = await principalOfHeader(header);
      return { actorId: actorIdOf(principal), reader: readerOf(principal) };
    },
    async session(sid: string) {
      const principal = await sessionPrincipal(deps, sid);
      return principal ? { actorId: actorIdOf(principal), reader: readerOf(principal) } : null;
    },
  };
  const limits = {
    maxJsonBytes: deps.config.maxJsonBytes,
    multipart: {
      uploadDir: uploadDir(deps.config.dataDir),
      maxFileBytes: deps.config.maxUploadBytes,
      maxFiles: Math.max(1, deps.config.uploadMaxFiles),
      bodyIdleTimeoutMs: deps.config.bodyIdleTimeoutMs,
    },
    readYourWrites: { behind: deps.behind, timeoutMs: deps.config.readYourWritesTimeoutMs },
  };

  // One router for everything, dispatching to the most specific route only: each router costs a
  // scan of its routes and a composed chain on every request.
  const router = new Router({ exclusive: true });
  const fixed: FixedRoutes = new Map();
  mountRoutes(router, RETRIEVAL_PREFIX, retrievalRoutes, limits, fixed);
  const rateLimit = rateLimiting({
    ...deps.rateLimits,
    fallback: createMemoryRateLimiter(),
    log: deps.log.child({ component: 'rate_limits' }),
    onRefused: (kind) => deps.metrics.rateLimitRefused(kind),
  });
  mountRoutes(router, ASSISTANT_ROUTE_PREFIX, assistantRoutes, { ...limits, rateLimit }, fixed);
  const openaiWire = openaiRoutes({
    chat: deps.chat,
    conversations: deps.conversations,
    maxTokensLimit: deps.config.llmMaxTokens,
    sseKeepAliveMs: deps.config.sseKeepAliveMs,
    startedAt: new Date(),
    async conversationsCaughtUp(position) {
      await deps.behind(position, {
        projections: [CONVERSATIONS],
        timeoutMs: deps.config.readYourWritesTimeoutMs,
      });
    },
  });
  mountRoutes(router, OPENAI_PREFIX, openaiWire, { ...limits, rateLimit }, fixed);
  // MCP (JSON-RPC, not in the OpenAPI document): the same user, use cases and tool rate limit.
  router.all(MCP_PATH, mcpEndpoint({ mcp: deps, maxJsonBytes: limits.maxJsonBytes, rateLimit }));

  let openapi: unknown = null;
  const describe = (): unknown =>
    (openapi ??= buildOpenApi(
      {
        title: 'Archivist',
        version: deps.version,
        description:
          // Code spans: the pages render the description as Markdown, where <endpoint> would be an HTML tag.
          'An AI assistant and a knowledge base an organisation can trust. Retrieval API under `/api/v1`; Assistant method API under `/api/method/assistant.api.<endpoint>`; the OpenAI chat completions wire under `/v1`.',
      },
      [
        {
          prefix: RETRIEVAL_PREFIX,
          routes: retrievalRoutes,
          // Alternatives: a service's X-API-Key, or a user's key pair or JWT (reading as that user).
          // The login session's cookie, for the web console, is left out: API clients send headers.
          security: [{ ApiKeyAuth: [] }, { ApiKeyPair: [] }, ...(verifyJwt ? [{ BearerJwt: [] }] : [])],
          errorSchema,
        },
        {
          prefix: ASSISTANT_ROUTE_PREFIX,
          routes: assistantRoutes,
          security: [{ SessionCookie: [] }, { ApiKeyPair: [] }, ...(verifyJwt ? [{ BearerJwt: [] }] : [])],
          errorSchema: assistantErrorSchema,
        },
        {
          prefix: OPENAI_PREFIX,
          routes: openaiWire,
          security: [{ ApiKeyPair: [] }, { BearerKeyPair: [] }, ...(verifyJwt ? [{ BearerJwt: [] }] : [])],
          errorSchema: openaiErrorSchema,
        },
      ],
    ));

  router.get('/', (ctx) => {
    // A browser is sent to the web console; API clients (JSON, */*, no Accept) get the index as before.
    ctx.vary('Accept');
    if (prefersHtml(ctx)) return ctx.redirect(`${CONSOLE_PATH}/`);
    ctx.body = {
      name: 'Archivist',
      version: deps.version,
      apis: {
        retrieval: RETRIEVAL_PREFIX,
        assistant: `${ASSISTANT_ROUTE_PREFIX}/assistant.api.<endpoint>`,
        openai: OPENAI_PREFIX,
      },
      docs: '/docs',
      redoc: '/redoc',
      openapi: '/openapi.json',
    };
  });
  const webConsole = serveConsole(options.consoleDir);
  mountDocs(router, describe);
  // Prometheus' text format; guarded like the Retrieval API (a service's X-API-Key when API_KEYS is set).
  router.get(METRICS_PATH, serveMetrics(deps.metrics));

  app.use(requestContext(deps.log, { quietPaths: QUIET_PATHS }));
  app.use(requestMetrics(deps.metrics));
  app.use(errorHandler({ assistant: ASSISTANT_ROUTE_PREFIX, openai: OPENAI_PREFIX }));
  app.use(mcpErrors());
  // Before routing, so that an unknown path under a protected prefix answers 401 like a known one:
  // clients without credentials learn nothing of which endpoints exist. Each API has its own: the
  // Retrieval API's X-API-Key names a service, the Assistant API's credentials name a user.
  app.use(
    guardPrefixes(apiKeyAuth(deps.config.apiKeys, userCredentials), {
      protect: [`${RETRIEVAL_PREFIX}/`, METRICS_PATH],
      exempt: [`${RETRIEVAL_PREFIX}/health`],
    }),
  );
  app.use(
    // The OpenAI wire and MCP act for a user as the Assistant API does, with the same credentials.
    guardPrefixes(assistantAuth({ users: deps.users, sessions: deps.sessions, verifyJwt }), {
      protect: [`${ASSISTANT_ROUTE_PREFIX}/`, `${OPENAI_PREFIX}/`, MCP_PATH],
      // Public routes (login, logout) need none; their paths are fixed, so exact paths are exempt.
      exempt: assistantRoutes
        .filter((route) => route.public)
        .map((route) => `${ASSISTANT_ROUTE_PREFIX}${route.path}`),
    }),
  );
  app.use(webConsole);
  app.use(serveFixedRoutes(fixed));
  app.use(router.routes());
  app.use(notFound(router));
  return app;
}
