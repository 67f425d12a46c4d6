/** Translating the MongoDB driver's errors (and FerretDB's replies) at the edge of the read store. */
import {
  BSON,
  MongoBulkWriteError,
  MongoClientClosedError,
  MongoError,
  MongoInvalidArgumentError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { ReadStoreUnavailableError, UnsupportedQueryError } from './readStore.js';

// Server replies that mean "not now" rather than "wrong": shutting down, stepping down, no primary.
const UNAVAILABLE_CODES = new Set([6, 7, 89, 91, 189, 9001, 10107, 11600, 11602, 13435, 13436]);
// Replies that mean the request itself cannot be served: bad value, type mismatch, too large…
const INVALID_CODES = new Set([2, 9, 14, 17, 115, 238, 10334, 51024]);
const INTERNAL_ERROR = 1;

/** The driver did not settle a call in time (its own timeouts did not fire). */
export class NoAnswer extends Error {
  constructor(what: string, ms: number) {
    super(`no answer to ${what} within ${ms} ms`);
  }
}

/**
 * FerretDB stopping: it cancels the requests it is still serving and answers each with an
 * InternalError whose message ends in Go's "context canceled" (MongoDB says InterruptedAtShutdown).
 * Another InternalError stays what it is — a fault to investigate, not a reason to retry.
 */
const isShutdownCancel = (error: MongoServerError): boolean =>
  error.code === INTERNAL_ERROR && /\bcontext canceled\b/.test(error.message);

/** Whether the error says the server cannot serve now (down, unreachable, stopping, overloaded). */
export function isUnavailable(error: unknown): boolean {
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoClientClosedError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof NoAnswer ||
    // The driver wraps a transport failure of a bulk write as a bulk error with no write errors and
    // no server code ("a driver related error not a bulk op error", in its words).
    (error instanceof MongoBulkWriteError &&
      typeof error.code !== 'number' &&
      (error.writeErrors as unknown[] | undefined)?.length === 0) ||
    (error instanceof MongoServerError &&
      typeof error.code === 'number' &&
      (UNAVAILABLE_CODES.has(error.code) || isShutdownCancel(error))) ||
    (error instanceof MongoError && error.hasErrorLabel('SystemOverloadedError'))
  );
}

/** Translates a driver error at the edge; anything without a meaning for the port passes through. */
export function translateMongoError(error: unknown, where: string): unknown {
  if (error instanceof ReadStoreUnavailableError || error instanceof UnsupportedQueryError) return error;
  if (isUnavailable(error))
    return new ReadStoreUnavailableError(`MongoDB at ${where} unreachable: ${(error as Error).message}`);
  if (
    error instanceof BSON.BSONError ||
    error instanceof MongoInvalidArgumentError ||
    (error instanceof MongoServerError && typeof error.code === 'number' && INVALID_CODES.has(error.code))
  )
    return new UnsupportedQueryError(`MongoDB refused the request: ${(error as Error).message}`);
  return error;
}

/** Whether the error is the server saying it does not know an operator, index type or command. */
export function isNotSupported(error: unknown): boolean {
  return error instanceof MongoServerError && !isUnavailable(error);
}
