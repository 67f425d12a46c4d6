import { uniqueName } from './cluster.js';
import type { TestApp } from './testApp.js';

export interface TestUser {
  /** The user's name: `name` as asked in embedded mode, made unique to the run in cluster mode. */
  name: string;
  /** `Authorization` header value of an API key pair of the user. */
  authorization: string;
  keyId: string;
  password: string;
}

/**
 * Creates a user with a password and an API key, as `archivist users add` and `users key` do. In
 * cluster mode users outlive the test, so the name gets a suffix no other test has used: tests use
 * `user.name`, not the name they asked for.
 */
export async function addTestUser(
  app: TestApp,
  name: string,
  options: { admin?: boolean } = {},
): Promise<TestUser> {
  const caller = { actorId: 'test', correlationId: `add-${name}` };
  const password = `${name}-password-1`;
  const unique = uniqueName(name);
  await app.runtime.users.add(unique, { admin: options.admin ?? false, password }, caller);
  const { keyId, key } = await app.runtime.users.issueKey(unique, caller);
  return { name: unique, authorization: `token ${key}`, keyId, password };
}
