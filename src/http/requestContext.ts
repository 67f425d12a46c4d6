import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../log.js';
import type { RequestState } from './mountRoutes.js';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The status logged for a request whose client went away before the response was complete (nginx's). */
export const CLIENT_CLOSED_STATUS = 499;

export interface RequestContextOptions {
  /** Paths whose requests are logged at debug instead of info (health probes). */
  quietPaths?: ReadonlySet<string>;
}

/**
 * Gives every request a correlation id (the client's `X-Request-ID` when it is sane, else a new
 * UUID, echoed back), a logger carrying it, an abort signal for client disconnects, and one log line
 * when it ends — with status 499 when the client went away first. The logger and the signal are
 * made on first use: most requests never need them, and a health probe should cost next to nothing.
 */
export function requestContext(log: Logger, options: RequestContextOptions = {}): Middleware {
  const quiet = options.quietPaths ?? new Set<string>();
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const correlationId = CLIENT_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-ID', correlationId);
    let childLog: Logger | null = null;
    let controller: AbortController | null = null;
    let clientGone = false;
    const onClose = (): void => {
      // 'close' before the response is complete means the client went away.
      if (ctx.res.writableFinished) return;
      clientGone = true;
      controller?.abort(new Error('client disconnected'));
    };
    ctx.res.once('close', onClose);
    const state: RequestState = {
      correlationId,
      get log() {
        return (childLog ??= log.child({ correlationId }));
      },
      get signal() {
        if (!controller) {
          controller = new AbortController();
          if (clientGone) controller.abort(new Error('client disconnected'));
        }
        return controller.signal;
      },
      caller: { actorId: 'anonymous', correlationId },
    };
    // Accessors, not values: Object.assign would read them (and build both at once).
    Object.defineProperties(ctx.state, Object.getOwnPropertyDescriptors(state));
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
      // A 408 is this server dropping a stalled client, not the client leaving.
      const aborted = clientGone && ctx.status !== 408;
      const line = {
        correlationId,
        method: ctx.method,
        path: ctx.path,
        status: aborted ? CLIENT_CLOSED_STATUS : ctx.status,
        ms,
      };
      if (aborted) log.info(line, 'request aborted by the client');
      else if (quiet.has(ctx.path)) log.debug(line, 'request');
      else log.info(line, 'request');
    }
  };
}
