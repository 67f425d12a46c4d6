import { EventStoreUnavailableError } from './eventStore.js';

/**
 * What the PostgreSQL driver and server throw, seen from the port: nothing of `pg` crosses it.
 * Everything that is not a version conflict or a deleted stream (those the store decides itself)
 * means the store cannot serve now, and becomes `EventStoreUnavailableError` naming the server.
 */

interface DriverError {
  code?: unknown;
  message?: unknown;
}

const codeOf = (error: unknown): string =>
  typeof (error as DriverError | null)?.code === 'string' ? ((error as DriverError).code as string) : '';

function messageOf(error: unknown): string {
  // A refused connection to a name with several addresses is an AggregateError with no message.
  if (error instanceof AggregateError && !error.message) return error.errors.map(messageOf).join('; ');
  return error instanceof Error ? error.message : String(error);
}

/** `host:port/database` of a connection string, without the user or password, for messages. */
export function describeTarget(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    const host = url.hostname || url.searchParams.get('host') || 'localhost';
    return `${host}:${url.port || '5432'}${url.pathname || '/'}`;
  } catch {
    return 'the configured server';
  }
}

export function unavailable(target: string, what: string, error: unknown): EventStoreUnavailableError {
  if (error instanceof EventStoreUnavailableError) return error;
  const code = codeOf(error);
  return new EventStoreUnavailableError(
    `PostgreSQL at ${target}: ${what} failed: ${messageOf(error) || 'no reason given'}${code ? ` [${code}]` : ''}`,
    { cause: error },
  );
}

/** A deadlock or serialisation failure: the transaction was rolled back whole and may simply run again. */
export function isTransient(error: unknown): boolean {
  const code = codeOf(error);
  return code === '40001' || code === '40P01';
}

/**
 * The connection broke under a statement that only reads (a pooled connection to a server that
 * restarted since): the same read on a fresh connection may well succeed.
 */
export function isConnectionLost(error: unknown): boolean {
  const code = codeOf(error);
  if (
    code.startsWith('08') ||
    code === '57P01' ||
    code === '57P02' ||
    code === 'ECONNRESET' ||
    code === 'EPIPE'
  )
    return true;
  return /Connection terminated|not queryable/.test(messageOf(error));
}

/** The user lacks a privilege (e.g. CHECKPOINT without pg_checkpoint): worth a log line, not a failure. */
export function isInsufficientPrivilege(error: unknown): boolean {
  return codeOf(error) === '42501';
}
