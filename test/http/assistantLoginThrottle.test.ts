import { expect } from 'chai';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

type ErrorBody = { message: { success: boolean; data: null; error: { type: string; status_code: number } } };

describe('Assistant API: failed logins are limited per user name and per client', function () {
  this.timeout(20_000);
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  before(async () => {
    app = await startTestApp({
      env: { LOGIN_MAX_FAILURES: '3', LOGIN_MAX_FAILURES_PER_CLIENT: '8', LOGIN_FAILURE_WINDOW_MS: '2000' },
    });
    alice = await addTestUser(app, 'alice');
    bob = await addTestUser(app, 'bob');
  });
  after(() => app.stop());

  // Every request of this test comes from one client address (the loopback).
  const login = (usr: string, pwd: string) => app.http.post('/api/method/login').send({ usr, pwd });
  const windowPasses = () => new Promise((resolve) => setTimeout(resolve, 2_100));

  function expectThrottled(response: {
    status: number;
    body: unknown;
    headers: Record<string, string>;
  }): void {
    expect(response.status).to.equal(429);
    const body = response.body as ErrorBody;
    expect(body.message).to.include({ success: false, data: null });
    expect(body.message.error).to.include({ type: 'too_many_login_failures', status_code: 429 });
    expect(Number(response.headers['retry-after'])).to.be.within(1, 2);
    expect(response.headers['set-cookie']).to.equal(undefined);
  }

  it('refuses a user name after N failures within the window — the right password too — until the window slides', async () => {
    for (let i = 0; i < 3; i += 1) await login(alice.name, 'wrong-password').expect(401);
    expectThrottled(await login(alice.name, 'wrong-password'));
    // The password is not even checked: the right one is refused as well.
    expectThrottled(await login(alice.name.toUpperCase(), alice.password));
    // Other user names are not affected.
    await login(bob.name, bob.password).expect(200);
    await windowPasses();
    await login(alice.name, alice.password).expect(200);
  });

  it('forgets a user name’s failures when it logs in', async () => {
    for (let i = 0; i < 2; i += 1) await login(bob.name, 'wrong-password').expect(401);
    await login(bob.name, bob.password).expect(200);
    for (let i = 0; i < 2; i += 1) await login(bob.name, 'wrong-password').expect(401);
    await login(bob.name, bob.password).expect(200);
  });

  it('refuses a client after M failures across user names, whichever name it tries next', async () => {
    await windowPasses();
    for (let i = 0; i < 8; i += 1) await login(`nobody${i}`, 'wrong-password').expect(401);
    expectThrottled(await login('nobody8', 'wrong-password'));
    expectThrottled(await login(alice.name, alice.password));
    await windowPasses();
    await login(alice.name, alice.password).expect(200);
  });
});
