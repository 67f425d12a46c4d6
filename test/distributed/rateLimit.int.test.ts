import { expect } from 'chai';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { startNatsServer, type NatsServerHandle } from '../support/natsServer.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const API = '/api/method/assistant.api';

/**
 * Two API instances (each with its own runtime, stores and NATS connections) on one nats-server,
 * as two API processes of the distributed profile: a user's window is one, whoever serves them.
 */
describe('distributed: rate limits shared by two API instances through NATS', function () {
  this.timeout(60_000);
  let nats: NatsServerHandle | null = null;
  const apps: TestApp[] = [];
  const users: TestUser[] = [];

  before(async function () {
    nats = await startNatsServer(); // prints why when it returns null
    if (!nats) this.skip();
    for (let i = 0; i < 2; i += 1) {
      const app = await startTestApp({ env: { BUS: 'nats', NATS_URL: nats.url } });
      apps.push(app);
      // The same user on both (each instance has its own event store here): limits go by user name.
      users.push(await addTestUser(app, 'carol'));
    }
  });
  after(async () => {
    await Promise.all(apps.splice(0).map((app) => app.stop()));
    await nats?.dispose();
  });

  const list = (instance: number) =>
    apps[instance]!.http.get(`${API}.list_conversations`).set(
      'Authorization',
      users[instance]!.authorization,
    );

  it('allows 100 requests split across both, and the 101st is 429 from either', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 100; i += 1) {
      const response = await list(i % 2).expect(200);
      expect(response.headers['x-ratelimit-limit']).to.equal('100');
      remaining.push(Number(response.headers['x-ratelimit-remaining']));
    }
    expect(remaining).to.deep.equal(Array.from({ length: 100 }, (_, i) => 99 - i));
    for (const instance of [0, 1]) {
      const refused = await list(instance).expect(429);
      expect(refused.headers['retry-after']).to.match(/^\d+$/);
      expect(refused.headers['x-ratelimit-remaining']).to.equal('0');
      const body = refused.body as { message: { success: boolean; error: { type: string } } };
      expect(body.message.success).to.equal(false);
      expect(body.message.error.type).to.equal('rate_limited');
    }
  });

  it('lets exactly the limit through a concurrent burst spread over both instances', async () => {
    for (let i = 0; i < 2; i += 1) users.push(await addTestUser(apps[i]!, 'dave'));
    const [dave0, dave1] = users.slice(2);
    const responses = await Promise.all(
      Array.from({ length: 140 }, (_, i) =>
        apps[i % 2]!.http.get(`${API}.list_conversations`).set(
          'Authorization',
          (i % 2 ? dave1 : dave0)!.authorization,
        ),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).to.have.length(100);
    expect(statuses.filter((status) => status === 429)).to.have.length(40);
  });
});
