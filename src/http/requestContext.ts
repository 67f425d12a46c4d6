import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Caller } from '../commands/context.js';
import type { Logger } from '../log.js';
import type { RequestState } from './mountRoutes.js';

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The status logged for a request whose client went away before the response was complete (nginx's). */
const CLIENT_CLOSED_STATUS = 499;

export interface RequestContextOptions {
  /** Paths whose requests are logged at debug instead of info (health probes). */
  quietPaths?: ReadonlySet<string>;
}

interface State extends RequestState {
  base: Logger;
  childLog: Logger | null;
  controller: AbortController | null;
  clientGone: boolean;
}

const gone = (): Error => new Error('client disconnected');

/**
 * What every request state shares: its logger (carrying the correlation id) and its abort signal
 * are made on first use. Most requests need neither, and a health probe should cost next to nothing.
 */
const lazyState = {
  get log(): Logger {
    const state = this as unknown as State;
    return (state.childLog ??= state.base.child({ correlationId: state.correlationId }));
  },
  get signal(): AbortSignal {
    const state = this as unknown as State;
    if (!state.controller) {
      state.controller = new AbortController();
      if (state.clientGone) state.controller.abort(gone());
    }
    return state.controller.signal;
  },
};

/**
 * Gives every request a correlation id (the client's `X-Request-ID` when it is sane, else a new
 * UUID, echoed back), a logger carrying it, an abort signal for client disconnects, and one log line
 * when it ends — with status 499 when the client went away first.
 */
export function requestContext(log: Logger, options: RequestContextOptions = {}): Middleware {
  const quiet = options.quietPaths ?? new Set<string>();
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const correlationId = CLIENT_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-ID', correlationId);
    const caller: Caller = { actorId: 'anonymous', correlationId };
    const state: State = Object.assign(Object.create(lazyState) as State, {
      correlationId,
      caller,
      base: log,
      childLog: null,
      controller: null,
      clientGone: false,
    });
    ctx.state = state;
    const response = ctx.res;
    response.once('close', () => {
      // 'close' before the response is complete means the client went away.
      if (response.writableFinished) return;
      state.clientGone = true;
      state.controller?.abort(gone());
    });
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
      // A 408 is this server dropping a stalled client, not the client leaving.
      const aborted = state.clientGone && ctx.status !== 408;
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
