import { ParseError } from '../errors.js';

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
