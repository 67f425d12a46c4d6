import { expect } from 'chai';

/** Awaits `promise`, asserts it rejected with an instance of `type`, and returns that error. */
export async function expectRejection<E extends Error>(
  promise: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  let outcome: { rejected: true; error: unknown } | { rejected: false; value: unknown };
  try {
    outcome = { rejected: false, value: await promise };
  } catch (error) {
    outcome = { rejected: true, error };
  }
  if (!outcome.rejected)
    expect.fail(`expected a ${type.name} rejection, got ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).to.be.instanceOf(type);
  return outcome.error as E;
}
