import { ParseError } from './errors.js';

/**
 * The `ParseError` an aborted signal stands for. A signal aborted with a `ParseError` (a caller's own
 * budget) keeps it, one from `AbortSignal.timeout()` is a `timeout`, anything else is `aborted`.
 */
export function abortError(signal: AbortSignal): ParseError {
  const reason: unknown = signal.reason;
  if (reason instanceof ParseError) return reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new ParseError('timeout', 'the time budget for this document ran out', { cause: reason });
  }
  return new ParseError('aborted', 'parsing was aborted', { cause: reason });
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw abortError(signal);
}

/**
 * Lets messages waiting for this thread (an abort from the pool, above all) run, then throws if the
 * work was aborted. Promise-based libraries such as pdf.js never return to the event loop on their
 * own, so a loop over pages calls this between pages to stay cancellable.
 */
export async function checkpoint(signal: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  throwIfAborted(signal);
}

/** True when `error` means the whole job must stop (an abort or a timeout), not that one step failed. */
export function isStop(error: unknown, signal: AbortSignal): boolean {
  return (
    signal.aborted || (error instanceof ParseError && (error.code === 'aborted' || error.code === 'timeout'))
  );
}
