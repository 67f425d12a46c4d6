import { expect } from 'chai';
import { isParseError, type ParseError, type ParseErrorCode } from '../../src/parsing/errors.js';

/** Awaits a promise that must reject with a `ParseError` of `code`, and returns the error. */
export async function expectParseError(promise: Promise<unknown>, code: ParseErrorCode): Promise<ParseError> {
  let failure: unknown;
  try {
    await promise;
  } catch (error) {
    failure = error;
  }
  if (failure === undefined) expect.fail(`expected a ParseError ${code}, but it resolved`);
  if (!isParseError(failure)) throw failure;
  expect(failure.code, failure.message).to.equal(code);
  return failure;
}
