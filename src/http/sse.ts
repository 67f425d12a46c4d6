import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { Logger } from '../log.js';
import { type HttpError, toHttpError } from './httpError.js';

export interface SseStream {
  /** Writes one event; `data` is serialised as JSON on one line. */
  send(event: { data: unknown; event?: string; id?: string | number }): void;
  /** Writes one event whose data is `text` as it is (OpenAI's `[DONE]`). */
  sendRaw(text: string): void;
  /**
   * Resolves when the client has taken what was sent (at once when little is buffered), or the
   * stream ended: a producer that can outrun its client (a replay of the whole log) awaits it.
   */
  drained(): Promise<void>;
  /** Ends the stream. */
  close(): void;
}

/**
 * Switches the response to Server-Sent Events. A comment line every `keepAliveMs` (`SSE_KEEPALIVE_MS`)
 * keeps proxies from closing an idle stream; the stream ends when `signal` aborts (the client has gone).
 */
export function openSse(ctx: Context, signal: AbortSignal, keepAliveMs: number): SseStream {
  const stream = new PassThrough();
  ctx.status = 200;
  ctx.set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  ctx.body = stream;
  ctx.req.socket.setNoDelay(true);
  const keepAlive = setInterval(() => {
    if (!stream.writableEnded) stream.write(': keep-alive\n\n');
  }, keepAliveMs);
  keepAlive.unref();
  const close = (): void => {
    clearInterval(keepAlive);
    if (!stream.writableEnded) stream.end();
  };
  signal.addEventListener('abort', close, { once: true });
  return {
    send({ data, event, id }) {
      if (stream.writableEnded) return;
      let frame = '';
      if (id !== undefined) frame += `id: ${id}\n`;
      if (event) frame += `event: ${event}\n`;
      frame += `data: ${JSON.stringify(data)}\n\n`;
      stream.write(frame);
    },
    sendRaw(text) {
      if (!stream.writableEnded) stream.write(`data: ${text}\n\n`);
    },
    drained() {
      if (stream.writableEnded || !stream.writableNeedDrain) return Promise.resolve();
      return new Promise((resolve) => {
        const done = (): void => {
          stream.off('drain', done);
          stream.off('close', done);
          resolve();
        };
        stream.once('drain', done);
        stream.once('close', done);
      });
    },
    close,
  };
}

/**
 * Feeds an open stream from `produce` without holding the request: the stream ends when `produce`
 * does, and a failure ends it with an error (`failed` writes it; by default an `error` event with
 * the API's error fields) and one log line — never an unhandled rejection. A client that left is
 * not an error.
 */
export function pumpSse(
  sse: SseStream,
  request: { signal: AbortSignal; log: Logger },
  produce: () => Promise<void>,
  failed: (error: HttpError) => void = (error) =>
    sse.send({
      event: 'error',
      data: { error: error.type, detail: error.message, status_code: error.status },
    }),
): void {
  void (async () => {
    try {
      await produce();
    } catch (raw) {
      if (request.signal.aborted) return;
      const error = toHttpError(raw);
      if (error.status >= 500) request.log.error({ err: raw }, 'event stream failed');
      else
        request.log.info(
          { status: error.status, type: error.type, detail: error.message },
          'event stream ended with an error',
        );
      failed(error);
    } finally {
      sse.close();
    }
  })();
}
