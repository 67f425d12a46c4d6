import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/testApp.js';
import { createTask } from '../../src/commands/newTask.js';

describe('X-API-Key authentication', () => {
  describe('with keys configured', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ env: { API_KEYS: 'alpha-key, beta-key' } });
    });
    after(async () => app.stop());

    it('answers 401 in the error shape when the key is missing', async () => {
      const response = await app.http.get('/api/v1/tasks').expect(401);
      expect(response.body).to.include({ error: 'missing_api_key', status_code: 401 });
      expect(response.body.detail).to.match(/X-API-Key/);
      expect(response.headers['www-authenticate']).to.match(/X-API-Key/);
    });

    it('answers 403 when the key is not one of the configured keys', async () => {
      const response = await app.http
        .get('/api/v1/tasks')
        .set('X-API-Key', 'alpha-key-but-longer')
        .expect(403);
      expect(response.body).to.include({ error: 'invalid_api_key', status_code: 403 });
      await app.http.get('/api/v1/tasks').set('X-API-Key', '').expect(401);
    });

    it('accepts every configured key (spaces around commas ignored)', async () => {
      await app.http.get('/api/v1/tasks').set('X-API-Key', 'alpha-key').expect(200);
      await app.http.get('/api/v1/tasks').set('X-API-Key', 'beta-key').expect(200);
    });

    it('checks the key before anything else about the request', async () => {
      await app.http.get('/api/v1/tasks?limit=9999').expect(401);
      await app.http.delete('/api/v1/tasks/unknown').set('X-API-Key', 'wrong').expect(403);
    });

    for (const path of ['/', '/docs', '/redoc', '/openapi.json', '/api/v1/health', '/api/v1/health/stats']) {
      it(`exempts ${path}`, async () => {
        await app.http.get(path).expect(200);
      });
    }

    it('exempts readiness too', async () => {
      const response = await app.http.get('/api/v1/health/ready').expect(200);
      expect(response.body).to.have.property('ready', true);
    });

    it('records the key (hashed, never in clear) as the actor of what the request does', async () => {
      const created = await createTask(
        app.runtime.tasks,
        'x',
        {},
        { actorId: 'seed', correlationId: 'seed' },
      );
      await app.runtime.projections.waitFor(created.position);
      const response = await app.http
        .delete(`/api/v1/tasks/${created.taskId}`)
        .set('X-API-Key', 'alpha-key')
        .expect(200);
      expect(response.body.status).to.equal('cancelled');
      const events = await app.runtime.eventStore.readStream(`task-${created.taskId}`);
      const actor = events.at(-1)!.metadata.actorId;
      expect(actor).to.match(/^api-key:[0-9a-f]{8}$/);
      expect(actor).to.not.include('alpha');
    });
  });

  describe('with no keys configured', () => {
    it('lets every request through (development mode) and says so in stats', async () => {
      const app = await startTestApp({ env: { API_KEYS: '' } });
      await app.http.get('/api/v1/tasks').expect(200);
      const stats = await app.http.get('/api/v1/health/stats').expect(200);
      expect(stats.body.api_auth_enabled).to.equal(false);
      await app.stop();
    });
  });
});
