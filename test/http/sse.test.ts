import { expect } from 'chai';
import { HttpError } from '../../src/http/httpError.js';
import { pumpSse, type SseStream } from '../../src/http/sse.js';
import { capturedLog, LEVEL } from '../support/capturedLog.js';

/** An SSE stream that records what was written to it. */
function recordingStream() {
  const sent: Array<{ data: unknown; event?: string | undefined }> = [];
  let closed!: () => void;
  const ended = new Promise<void>((resolve) => (closed = resolve));
  const stream: SseStream = {
    send: ({ data, event }) => void sent.push({ data, event }),
    sendRaw: (text) => void sent.push({ data: text }),
    drained: () => Promise.resolve(),
    close: () => closed(),
  };
  return { stream, sent, ended };
}

describe('pumpSse', () => {
  it('ends a stream whose producer fails with one error event and one error log line', async () => {
    const { stream, sent, ended } = recordingStream();
    const { log, lines } = capturedLog();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      pumpSse(stream, { signal: new AbortController().signal, log }, async () => {
        stream.send({ event: 'TaskStarted', data: { n: 1 } });
        throw new Error('the store went away');
      });
      await ended;
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(sent).to.deep.equal([
      { event: 'TaskStarted', data: { n: 1 } },
      {
        event: 'error',
        data: { error: 'internal_error', detail: 'An unexpected error occurred', status_code: 500 },
      },
    ]);
    expect(lines.filter((line) => line.level === LEVEL.error).map((line) => line.msg)).to.deep.equal([
      'event stream failed',
    ]);
    expect(unhandled).to.deep.equal([]);
  });

  it('reports a client error in its own shape and logs it below error level', async () => {
    const { stream, sent, ended } = recordingStream();
    const { log, lines } = capturedLog();
    pumpSse(stream, { signal: new AbortController().signal, log }, async () => {
      throw new HttpError(404, 'task_not_found', 'no task x');
    });
    await ended;
    expect(sent).to.deep.equal([
      { event: 'error', data: { error: 'task_not_found', detail: 'no task x', status_code: 404 } },
    ]);
    expect(lines.every((line) => line.level < LEVEL.warn)).to.equal(true);
  });

  it('says nothing when the client has gone', async () => {
    const { stream, sent, ended } = recordingStream();
    const { log, lines } = capturedLog();
    const controller = new AbortController();
    controller.abort();
    pumpSse(stream, { signal: controller.signal, log }, async () => {
      throw new Error('aborted');
    });
    await ended;
    expect(sent).to.deep.equal([]);
    expect(lines).to.deep.equal([]);
  });
});
