import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import type { RequestState } from './mountRoutes.js';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request a correlation id (the client's `X-Request-ID` when it is sane, else a new
 * UUID, echoed back), a child logger carrying it, an abort signal for client disconnects, and one
 * log line when it ends.
 */
export function requestContext(log: Logger): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const correlationId = CLIENT_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-ID', correlationId);
    const controller = new AbortController();
    // 'close' before the response is complete means the client went away.
    ctx.res.on('close', () => {
      if (!ctx.res.writableFinished) controller.abort(new Error('client disconnected'));
    });
    const state: RequestState = {
      correlationId,
      log: log.child({ correlationId }),
      signal: controller.signal,
      caller: { actorId: 'anonymous', correlationId },
    };
    Object.assign(ctx.state, state);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      state.log.info(
        { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 100) / 100 },
        'request',
      );
    }
  };
}
