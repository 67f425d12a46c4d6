import type { Middleware } from 'koa';
import type { Metrics } from '../metrics/metrics.js';
import type { RequestState } from './mountRoutes.js';

/**
 * Times every request into the metrics, labelled by its route's template (or `unmatched`) and its
 * final status: placed outside the error handler, so failures count with the status they were
 * answered with.
 */
export function requestMetrics(metrics: Pick<Metrics, 'observeRequest'>): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = (ctx.state as Partial<RequestState>).route ?? 'unmatched';
      metrics.observeRequest(ctx.method, route, ctx.status, (performance.now() - started) / 1000);
    }
  };
}
