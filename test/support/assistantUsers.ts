import type { TestApp } from './testApp.js';

export interface TestUser {
  name: string;
  /** `Authorization` header value of an API key pair of the user. */
  authorization: string;
  keyId: string;
  password: string;
}

/** Creates a user with a password and an API key, as `archivist users add` and `users key` do. */
export async function addTestUser(
  app: TestApp,
  name: string,
  options: { admin?: boolean } = {},
): Promise<TestUser> {
  const caller = { actorId: 'test', correlationId: `add-${name}` };
  const password = `${name}-password-1`;
  await app.runtime.users.add(name, { admin: options.admin ?? false, password }, caller);
  const { keyId, key } = await app.runtime.users.issueKey(name, caller);
  return { name, authorization: `token ${key}`, keyId, password };
}
