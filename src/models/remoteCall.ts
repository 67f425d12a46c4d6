import { setTimeout as sleepFor } from 'node:timers/promises';
import type { Logger } from '../log.js';
import { ModelError } from './modelError.js';

/** How every remote model call is bounded and retried. */
export interface RetryPolicy {
  /** Attempts in all, the first included (at least 1). */
  attempts: number;
  /** Time one attempt may take; for a stream, the longest silence between two events. */
  timeoutMs: number;
  /** The first retry waits about this long; each later one twice as long as the one before… */
  baseDelayMs: number;
  /** …up to this. */
  maxDelayMs: number;
  /** A server asking for a longer wait (`Retry-After`) is not waited for: the call fails at once. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  attempts: 3,
  timeoutMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
};

/** One attempt's view: pass `signal` to the transport. */
export interface Attempt {
  signal: AbortSignal;
  /** Restarts the attempt's timer: a stream calls it on every event. */
  extend(): void;
}

/** An attempt that outlives `open` (a stream being read): close it when done. */
export interface OpenAttempt extends Attempt {
  /** The ModelError for a failure while reading on: a timeout when the timer fired, else translated. */
  fail(error: unknown): ModelError;
  close(): void;
}

export interface RemoteCallerOptions {
  /** Names the model in errors and logs. */
  model: string;
  policy: RetryPolicy;
  /** The adapter's vendor edge: whatever the transport threw, as a ModelError. */
  translate(error: unknown): ModelError;
  log?: Logger;
  /** Injected by tests so backoff needs no clock. Rejects when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export interface RemoteCaller {
  readonly policy: RetryPolicy;
  /** Runs `run` under the policy: a time limit per attempt, retries with backoff, the caller's abort. */
  call<T>(operation: string, run: (attempt: Attempt) => Promise<T>, signal?: AbortSignal): Promise<T>;
  /**
   * Like `call`, but the successful attempt stays open (its timer and abort keep working) for what
   * the caller reads on: retries happen only until `run` resolves, so a stream is never restarted
   * after it has delivered something.
   */
  open<T>(
    operation: string,
    run: (attempt: Attempt) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<{ value: T; attempt: OpenAttempt }>;
}

/**
 * The one retry policy of every remote model adapter: 429, 5xx and connection failures are retried
 * up to `attempts` in all, waiting what `Retry-After` asks or an exponential backoff with jitter (so
 * many clients do not come back in step); a timeout, a rejection (other 4xx) or an unusable answer
 * is not retried. The caller's abort stops an attempt and any wait at once.
 */
export function createRemoteCaller(options: RemoteCallerOptions): RemoteCaller {
  const { model, policy, log } = options;
  const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => sleepFor(ms, undefined, { signal }));
  const random = options.random ?? Math.random;

  function aborted(operation: string, signal: AbortSignal | undefined): ModelError {
    return new ModelError('aborted', `${model}: ${operation} aborted`, { cause: signal?.reason });
  }

  function startAttempt(operation: string, signal: AbortSignal | undefined): OpenAttempt {
    const controller = new AbortController();
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error('timeout'));
      }, policy.timeoutMs);
    };
    const onAbort = (): void => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    arm();
    return {
      signal: controller.signal,
      extend: () => {
        if (!controller.signal.aborted) arm();
      },
      fail(error) {
        if (timedOut) {
          return new ModelError(
            'timeout',
            `${model}: ${operation} got no answer within ${policy.timeoutMs} ms`,
            {
              cause: error,
            },
          );
        }
        if (signal?.aborted) return aborted(operation, signal);
        const translated = options.translate(error);
        return new ModelError(translated.code, `${model}: ${operation} failed: ${translated.message}`, {
          ...(translated.httpStatus === null ? {} : { httpStatus: translated.httpStatus }),
          ...(translated.retryAfterMs === null ? {} : { retryAfterMs: translated.retryAfterMs }),
          cause: translated.cause ?? error,
        });
      },
      close() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      },
    };
  }

  /** Equal jitter: half the exponential step for sure, the other half at random. */
  function backoff(attempt: number): number {
    const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(step / 2 + random() * (step / 2));
  }

  async function open<T>(
    operation: string,
    run: (attempt: Attempt) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<{ value: T; attempt: OpenAttempt }> {
    for (let attempt = 1; ; attempt += 1) {
      if (signal?.aborted) throw aborted(operation, signal);
      const handle = startAttempt(operation, signal);
      let error: ModelError;
      try {
        return { value: await run(handle), attempt: handle };
      } catch (thrown) {
        handle.close();
        error = handle.fail(thrown);
      }
      if (!error.retryable || attempt >= policy.attempts) throw error.withAttempts(attempt);
      if (error.retryAfterMs !== null && error.retryAfterMs > policy.maxRetryAfterMs) {
        throw new ModelError(
          error.code,
          `${error.message}; the server asks to wait ${Math.ceil(error.retryAfterMs / 1000)} s, longer than the ${policy.maxRetryAfterMs / 1000} s this client waits`,
          {
            ...(error.httpStatus === null ? {} : { httpStatus: error.httpStatus }),
            attempts: attempt,
            cause: error,
          },
        );
      }
      const waitMs = error.retryAfterMs ?? backoff(attempt);
      log?.warn(
        { model, operation, attempt, code: error.code, httpStatus: error.httpStatus, waitMs },
        'model call failed; retrying',
      );
      try {
        await sleep(waitMs, signal);
      } catch (cause) {
        if (signal?.aborted) throw aborted(operation, signal);
        throw cause;
      }
    }
  }

  return {
    policy,
    open,
    async call(operation, run, signal) {
      const { value, attempt } = await open(operation, run, signal);
      attempt.close();
      return value;
    },
  };
}
