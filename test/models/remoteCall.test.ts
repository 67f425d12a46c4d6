import { expect } from 'chai';
import { ModelError, parseRetryAfter } from '../../src/models/modelError.js';
import { createRemoteCaller, DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../src/models/remoteCall.js';
import { expectRejection } from '../support/expectRejection.js';

/** A caller whose waits are recorded instead of slept, and whose jitter is `jitter`. */
function callerFor(policy: Partial<RetryPolicy> = {}, jitter = 0.5) {
  const waits: number[] = [];
  const caller = createRemoteCaller({
    model: 'test-model',
    policy: { ...DEFAULT_RETRY_POLICY, ...policy },
    translate: (error) =>
      error instanceof ModelError ? error : new ModelError('bad_response', String(error), { cause: error }),
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      waits.push(ms);
    },
    random: () => jitter,
  });
  return { caller, waits };
}

/** A transport that fails with `errors` in turn, then answers 'ok'. */
function failing(...errors: ModelError[]) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    run: async (): Promise<string> => {
      const error = errors[calls++];
      if (error) throw error;
      return 'ok';
    },
  };
}

const http = (status: number, retryAfterMs?: number): ModelError =>
  new ModelError(
    status === 429 ? 'rate_limited' : status >= 500 ? 'unavailable' : 'rejected',
    `HTTP ${status}`,
    {
      httpStatus: status,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    },
  );

describe('remote model calls: one retry policy', () => {
  it('waits what a 429 asks (Retry-After) and tries again', async () => {
    const { caller, waits } = callerFor();
    const transport = failing(http(429, 2_000));
    expect(await caller.call('embed', transport.run)).to.equal('ok');
    expect(transport.calls).to.equal(2);
    expect(waits).to.deep.equal([2_000]);
  });

  it('backs off exponentially with jitter on 5xx and lost connections: half the step for sure, half at random', async () => {
    const low = callerFor({ attempts: 4, baseDelayMs: 500 }, 0);
    const lost = new ModelError('unavailable', 'no connection (ECONNREFUSED)');
    expect(await low.caller.call('embed', failing(http(503), lost, http(502)).run)).to.equal('ok');
    expect(low.waits).to.deep.equal([250, 500, 1_000]);
    const high = callerFor({ attempts: 4, baseDelayMs: 500 }, 1);
    await high.caller.call('embed', failing(http(503), http(503), http(503)).run);
    expect(high.waits).to.deep.equal([500, 1_000, 2_000]);
  });

  it('caps the backoff at maxDelayMs', async () => {
    const { caller, waits } = callerFor({ attempts: 6, baseDelayMs: 1_000, maxDelayMs: 3_000 }, 1);
    await caller.call('embed', failing(http(500), http(500), http(500), http(500), http(500)).run);
    expect(waits).to.deep.equal([1_000, 2_000, 3_000, 3_000, 3_000]);
  });

  it('gives up after `attempts` in all, saying how many were made', async () => {
    const { caller, waits } = callerFor({ attempts: 3 });
    const transport = failing(http(503), http(503), http(503), http(503));
    const error = await expectRejection(caller.call('embed', transport.run), ModelError);
    expect(transport.calls).to.equal(3);
    expect(waits).to.have.length(2);
    expect(error.code).to.equal('unavailable');
    expect(error.attempts).to.equal(3);
    expect(error.httpStatus).to.equal(503);
    expect(error.message).to.equal('test-model: embed failed: HTTP 503 (after 3 attempts)');
  });

  for (const [what, error] of [
    ['a rejection (4xx other than 429)', http(400)],
    ['an unusable answer', new ModelError('bad_response', 'the answer has no `data` list')],
    ['an unsupported request', new ModelError('unsupported', 'no JSON schema here')],
  ] as const) {
    it(`does not retry ${what}`, async () => {
      const { caller, waits } = callerFor();
      const transport = failing(error);
      const thrown = await expectRejection(caller.call('embed', transport.run), ModelError);
      expect(thrown.code).to.equal(error.code);
      expect(transport.calls).to.equal(1);
      expect(waits).to.deep.equal([]);
    });
  }

  it('fails at once when the server asks to wait longer than the client waits', async () => {
    const { caller, waits } = callerFor({ maxRetryAfterMs: 30_000 });
    const transport = failing(http(429, 120_000));
    const error = await expectRejection(caller.call('embed', transport.run), ModelError);
    expect(error.code).to.equal('rate_limited');
    expect(error.message).to.match(/asks to wait 120 s, longer than the 30 s this client waits/);
    expect(transport.calls).to.equal(1);
    expect(waits).to.deep.equal([]);
  });

  it('ends an attempt that outlives its time limit through its signal, as a timeout, not retried', async () => {
    const { caller, waits } = callerFor({ timeoutMs: 30 });
    let calls = 0;
    const error = await expectRejection(
      caller.call('chat', (attempt) => {
        calls += 1;
        return new Promise((_, reject) =>
          attempt.signal.addEventListener('abort', () => reject(new Error('aborted'))),
        );
      }),
      ModelError,
    );
    expect(error.code).to.equal('timeout');
    expect(error.message).to.equal('test-model: chat got no answer within 30 ms');
    expect(calls).to.equal(1);
    expect(waits).to.deep.equal([]);
  });

  it("passes the caller's abort to the attempt and reports it as aborted", async () => {
    const { caller } = callerFor();
    const controller = new AbortController();
    const pending = caller.call(
      'chat',
      (attempt) =>
        new Promise((_, reject) =>
          attempt.signal.addEventListener('abort', () => reject(new Error('stopped'))),
        ),
      controller.signal,
    );
    controller.abort();
    const error = await expectRejection(pending, ModelError);
    expect(error.code).to.equal('aborted');
  });

  it('stops waiting between attempts when the caller aborts', async () => {
    const controller = new AbortController();
    let waiting = false;
    const caller = createRemoteCaller({
      model: 'test-model',
      policy: DEFAULT_RETRY_POLICY,
      translate: (error) => error as ModelError,
      // A wait that only the abort ends: the test proves the abort, not a timer, ended it.
      sleep: (_ms, signal) =>
        new Promise((_, reject) => {
          waiting = true;
          signal?.addEventListener('abort', () => reject(signal.reason));
        }),
    });
    const transport = failing(http(503), http(503));
    const pending = caller.call('embed', transport.run, controller.signal);
    while (!waiting) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const error = await expectRejection(pending, ModelError);
    expect(error.code).to.equal('aborted');
    expect(transport.calls).to.equal(1);
  });

  it('does not start when the caller has already aborted', async () => {
    const { caller } = callerFor();
    const transport = failing();
    const error = await expectRejection(caller.call('embed', transport.run, AbortSignal.abort()), ModelError);
    expect(error.code).to.equal('aborted');
    expect(transport.calls).to.equal(0);
  });

  it('keeps an opened attempt alive while it is extended, and times it out once it goes quiet', async () => {
    const { caller } = callerFor({ timeoutMs: 300 });
    const { value, attempt } = await caller.open('stream', async () => 'opened');
    expect(value).to.equal('opened');
    // Ten events 30 ms apart: 300 ms in all, but never 300 ms of silence.
    for (let event = 0; event < 10; event += 1) {
      await new Promise((resolve) => setTimeout(resolve, 30));
      attempt.extend();
    }
    expect(attempt.signal.aborted).to.equal(false);
    await new Promise((resolve) => attempt.signal.addEventListener('abort', resolve));
    expect(attempt.fail(new Error('stream ended')).code).to.equal('timeout');
    attempt.close();
  });
});

describe('Retry-After', () => {
  const headers = (entries: Record<string, string>) => new Headers(entries);

  it('reads seconds, an HTTP date, and OpenAI’s retry-after-ms (which wins)', () => {
    expect(parseRetryAfter(headers({ 'retry-after': '3' }))).to.equal(3_000);
    expect(parseRetryAfter(headers({ 'retry-after': '0.5' }))).to.equal(500);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:10 GMT' }), now)).to.equal(
      10_000,
    );
    expect(parseRetryAfter(headers({ 'retry-after': '3', 'retry-after-ms': '1200' }))).to.equal(1_200);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(headers({}))).to.equal(null);
    expect(parseRetryAfter(headers({ 'retry-after': 'soon' }))).to.equal(null);
  });
});
