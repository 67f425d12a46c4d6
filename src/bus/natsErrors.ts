/** Translating the NATS client's errors at the edge of the bus, and bounding waits on the server. */
import { JetStreamApiError } from '@nats-io/jetstream';
import { errors } from '@nats-io/transport-node';
import { BusUnavailableError } from './bus.js';
import { settleWithin } from '../settleWithin.js';

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

const UNAVAILABLE = [
  errors.ClosedConnectionError,
  errors.ConnectionError,
  errors.DrainingConnectionError,
  errors.NoRespondersError,
  errors.RequestError,
  errors.TimeoutError,
];

/**
 * Translates a client error: the server (or JetStream) not answering becomes
 * `BusUnavailableError`; anything else becomes a plain `Error` carrying the server's message.
 */
export function toBusError(error: unknown, what: string): Error {
  if (error instanceof BusUnavailableError) return error;
  const unavailable =
    UNAVAILABLE.some((type) => error instanceof type) ||
    (error instanceof JetStreamApiError && error.status === 503);
  const message = `${what}: ${describeError(error)}`;
  return unavailable ? new BusUnavailableError(message) : new Error(message);
}

/** Resolves with `promise` or rejects with `BusUnavailableError` after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return settleWithin(promise, ms, () => new BusUnavailableError(`${what}: no answer within ${ms} ms`));
}
