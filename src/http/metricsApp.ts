import Koa from 'koa';
import type { Middleware } from 'koa';
import type { Metrics } from '../metrics/metrics.js';
import { apiKeyAuth } from './apiKeyAuth.js';
import { errorHandler } from './errorHandler.js';
import { HttpError } from './httpError.js';
import { requestContext } from './requestContext.js';
import type { Logger } from '../log.js';

export const METRICS_PATH = '/metrics';

/** `GET /metrics`: the process's metrics in Prometheus' text format. */
export const serveMetrics =
  (metrics: Metrics): Middleware =>
  async (ctx) => {
    const { contentType, body } = await metrics.scrape();
    ctx.type = contentType;
    ctx.body = body;
  };

/**
 * What a process without the API (a worker, a projector) serves on METRICS_PORT: its own
 * `/metrics` (ingestion stages and model calls happen in workers), guarded as the API's is, by a
 * service's X-API-Key when API_KEYS is set. Anything else is 404.
 */
export function createMetricsApp(deps: { apiKeys: readonly string[]; metrics: Metrics; log: Logger }): Koa {
  const app = new Koa();
  app.silent = true;
  const guard = apiKeyAuth(deps.apiKeys);
  const serve = serveMetrics(deps.metrics);
  app.use(requestContext(deps.log, { quietPaths: new Set([METRICS_PATH]) }));
  app.use(errorHandler());
  app.use(async (ctx, next) => {
    if (ctx.path !== METRICS_PATH)
      throw new HttpError(404, 'not_found', `Only ${METRICS_PATH} is served here`);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new HttpError(405, 'method_not_allowed', `${METRICS_PATH} answers GET`, [], {
        Allow: 'GET, HEAD',
      });
    }
    await guard(ctx, next);
  });
  app.use(serve);
  return app;
}
