import { once } from 'node:events';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { capturedLog, LEVEL } from '../support/capturedLog.js';
import { skipInCluster } from '../support/cluster.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';
import { MEMORY_BYTES_PER_REQUEST } from '../../src/http/multipart.js';

const BOUNDARY = 'archivist-test-boundary';

/** A multipart body with one file part; `type` null leaves out the part's Content-Type (RFC 7578 allows it). */
function multipart(fileName: string, content: string, type: string | null): Buffer {
  const head =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
    (type ? `Content-Type: ${type}\r\n` : '') +
    '\r\n';
  return Buffer.concat([
    Buffer.from(head, 'utf8'),
    Buffer.from(content),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/** Opens a raw connection and sends the start of an upload of `declared` bytes, then `sent` of them. */
async function startUpload(url: string, declared: number, sent: Buffer): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  socket.write(
    `POST /api/v1/parse HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: ${declared}\r\n\r\n`,
  );
  socket.write(sent);
  return socket;
}

/** Everything the server sends until it closes the connection. */
async function readUntilClosed(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'close');
  return Buffer.concat(chunks).toString('utf8');
}

/** Bytes of a file beyond what a request holds in memory: the rest goes to a temporary file. */
const PAST_MEMORY = MEMORY_BYTES_PER_REQUEST + 100_000;

const uploadsIn = (dataDir: string) => readdir(join(dataDir, 'tmp')).catch(() => [] as string[]);

describe('HTTP edges', function () {
  this.timeout(20_000);

  describe('authentication before routing', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ env: { API_KEYS: 'right-key' } });
    });
    after(() => app.stop());

    it('answers 401 for unknown and known paths alike without a key, so endpoints cannot be enumerated', async () => {
      for (const path of ['/api/v1/no-such-endpoint', '/api/v1/documents', '/api/v1/tasks/x/y/z']) {
        const response = await app.http.get(path).expect(401);
        expect(response.body).to.include({ error: 'missing_api_key', status_code: 401 });
      }
      await app.http.get('/api/v1/no-such-endpoint').set('X-API-Key', 'wrong').expect(403);
      await app.http.get('/api/v1/no-such-endpoint').set('X-API-Key', 'right-key').expect(404);
    });

    it('keeps the Assistant API closed to X-API-Key: it takes its own credentials, in its envelope', async () => {
      const response = await app.http
        .post('/api/method/assistant.api.get_config')
        .set('X-API-Key', 'right-key')
        .send({})
        .expect(401);
      expect(response.body.message).to.include({ success: false, data: null });
      expect(response.body.message.error).to.include({ type: 'authentication_required', status_code: 401 });
      expect(response.body.message.error.message).to.include('X-API-Key');
    });

    it('leaves health, the documentation and the root open', async () => {
      for (const path of [
        '/api/v1/health',
        '/api/v1/health/ready',
        '/api/v1/health/stats',
        '/openapi.json',
        '/',
      ]) {
        const response = await app.http.get(path);
        expect(response.status, path).to.be.oneOf([200, 503]);
      }
    });
  });

  describe('routing', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp();
    });
    after(() => app.stop());

    it('lets a fixed path own every method: DELETE /documents/stats is 405, not a document named "stats"', async () => {
      await app.http.get('/api/v1/documents/stats').expect(200);
      const response = await app.http.delete('/api/v1/documents/stats').expect(405);
      expect(response.headers['allow']).to.equal('HEAD, GET');
      const options = await app.http.options('/api/v1/documents/delete').expect(204);
      expect(options.headers['allow']).to.equal('POST');
      const byId = await app.http.delete('/api/v1/documents/some-id').expect(200);
      expect(byId.body).to.include({ doc_id: 'some-id', status: 'not_found' });
    });

    it('refuses a page beyond any meaningful offset with 422 instead of failing', async () => {
      const response = await app.http.get('/api/v1/documents?page=9223372036854775807').expect(422);
      expect(response.body.errors[0]).to.include({ location: 'query', field: 'page' });
    });

    it('refuses an unknown key in a deletion filter instead of dropping it (which would widen the deletion)', async () => {
      const response = await app.http
        .post('/api/v1/documents/delete/by-filter')
        .send({ where: { section: 'reports', sourc: 'typo' } })
        .expect(422);
      expect(response.body.error).to.equal('validation_error');
    });
  });

  describe('uploads', () => {
    let app: TestApp;
    let dataDir: string;
    const captured = capturedLog();
    before(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'archivist-edges-'));
      app = await startTestApp({
        env: {
          DATA_DIR: dataDir,
          HTTP_BODY_IDLE_TIMEOUT_MS: '300',
          HTTP_HEADERS_TIMEOUT_MS: '300',
          HTTP_REQUEST_TIMEOUT_MS: '1500',
        },
        log: captured.log,
      });
    });
    after(async () => {
      await app.stop();
      await rm(dataDir, { recursive: true, force: true });
    });
    beforeEach(() => captured.lines.splice(0));

    it('accepts a file part without a Content-Type and detects its type from its content and name', async () => {
      const response = await app.http
        .post('/api/v1/parse')
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(multipart('notes.md', '# Title\n\nSome text.\n', null))
        .expect(200);
      expect(response.body).to.include({ success: true, source_file: 'notes.md', format: '.md' });
    });

    it('strips control and format characters from echoed file names and caps their length', async () => {
      const disguised = await app.http
        .post('/api/v1/parse')
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(multipart('re\u0007po\u202Ert.md', '# T\n\nx\n', 'text/markdown'))
        .expect(200);
      expect(disguised.body.source_file).to.equal('report.md');
      const long = await app.http
        .post('/api/v1/parse')
        .set('Content-Type', `multipart/form-data; boundary=${BOUNDARY}`)
        .send(multipart(`${'n'.repeat(400)}.md`, '# T\n\nx\n', 'text/markdown'))
        .expect(200);
      expect(long.body.source_file).to.have.lengthOf(255);
      expect(long.body.source_file.endsWith('.md')).to.equal(true);
    });

    it('writes an upload past the memory a request keeps under DATA_DIR/tmp, and drops one that stalls with a 408 the client receives, removing its file', async () => {
      const { url } = await app.server();
      const partial = multipart('big.md', 'x'.repeat(PAST_MEMORY + 10_000), 'text/markdown').subarray(
        0,
        PAST_MEMORY,
      );
      const socket = await startUpload(url, 2 * PAST_MEMORY, partial);
      const closed = readUntilClosed(socket);
      await eventually(async () => ((await uploadsIn(dataDir)).length === 1 ? true : undefined));
      const received = await closed;
      expect(received).to.match(/^HTTP\/1\.1 408/);
      expect(received).to.match(/^connection: close\r$/im);
      expect(received).to.include('"error":"request_timeout"');
      await eventually(async () => ((await uploadsIn(dataDir)).length === 0 ? true : undefined));
      const rejected = await eventually(() => captured.lines.find((line) => line.msg === 'request rejected'));
      expect(rejected).to.include({ status: 408, type: 'request_timeout' });
      expect(captured.lines.filter((line) => line.level >= LEVEL.error)).to.deep.equal([]);
    });

    it('cuts an upload that trickles in slower than the whole-request timeout allows', async () => {
      const { url } = await app.server();
      const body = multipart('slow.md', 'y'.repeat(2_000), 'text/markdown');
      const socket = await startUpload(url, body.length, body.subarray(0, 100));
      const received = readUntilClosed(socket);
      // A byte every 100 ms never looks idle, yet the request cannot finish within 1.5 s.
      let offset = 100;
      const drip = setInterval(() => {
        if (offset < body.length && !socket.destroyed) socket.write(body.subarray(offset, (offset += 1)));
      }, 100);
      try {
        expect(await received).to.match(/^HTTP\/1\.1 408/);
      } finally {
        clearInterval(drip);
      }
      await eventually(async () => ((await uploadsIn(dataDir)).length === 0 ? true : undefined));
    });

    it('closes a connection whose headers do not arrive in time', async () => {
      const { url } = await app.server();
      const { hostname, port } = new URL(url);
      const socket = connect(Number(port), hostname);
      await once(socket, 'connect');
      socket.write(`GET /api/v1/health HTTP/1.1\r\nHost: ${hostname}\r\n`);
      expect(await readUntilClosed(socket)).to.match(/^HTTP\/1\.1 408/);
    });

    it('logs an upload the client aborts as aborted (499), not as an error, and removes its file', async () => {
      const { url } = await app.server();
      const socket = await startUpload(
        url,
        2 * PAST_MEMORY,
        // Cut inside the file part, past the memory a request keeps: the upload is still arriving
        // (into its temporary file) when the client leaves.
        multipart('gone.md', 'z'.repeat(PAST_MEMORY + 10_000), 'text/markdown').subarray(0, PAST_MEMORY),
      );
      await eventually(async () => ((await uploadsIn(dataDir)).length === 1 ? true : undefined));
      socket.destroy();
      const line = await eventually(() =>
        captured.lines.find((entry) => entry.msg === 'request aborted by the client'),
      );
      expect(line).to.include({ status: 499, path: '/api/v1/parse', level: LEVEL.info });
      await eventually(async () => ((await uploadsIn(dataDir)).length === 0 ? true : undefined));
      expect(captured.lines.filter((line) => line.level >= LEVEL.warn)).to.deep.equal([]);
    });

    it('answers an upload the blob store cannot take with 503, records no task, and takes the next', async function () {
      skipInCluster(this, "the cluster's API processes keep uploads in NATS, not in this test's folder");
      const blobs = join(dataDir, 'blobs');
      await app.http
        .post('/api/v1/upload/async')
        .attach('file', Buffer.from('# Before\n'), 'before.md')
        .expect(202);
      const tasksBefore = (await app.http.get('/api/v1/tasks').expect(200)).body.total as number;
      // The folder uploads wait in, removed under the running server (an operator's mistake, a
      // disk swapped): the bytes cannot be stored.
      await rm(blobs, { recursive: true, force: true });
      const refused = await app.http
        .post('/api/v1/upload/async')
        .attach('file', Buffer.from('# During\n'), 'during.md');
      expect(refused.status).to.equal(503);
      expect(refused.body).to.include({ error: 'service_unavailable', status_code: 503 });
      expect(refused.body.detail).to.include(blobs);
      expect((await app.http.get('/api/v1/tasks').expect(200)).body.total).to.equal(tasksBefore);
      const after = await app.http
        .post('/api/v1/upload/async')
        .attach('file', Buffer.from('# After\n\nStored once the folder was made again.'), 'after.md')
        .expect(202);
      await eventually(async () => {
        const task = (await app.http.get(`/api/v1/tasks/${after.body.task_id as string}`).expect(200)).body;
        return task.status === 'completed' ? true : undefined;
      });
    });

    it('logs health probes at debug and other requests at info, each with its correlation id', async () => {
      await app.http.get('/api/v1/health').set('X-Request-ID', 'probe-1').expect(200);
      await app.http.get('/api/v1/tasks').set('X-Request-ID', 'list-1').expect(200);
      const probe = captured.lines.find((line) => line['correlationId'] === 'probe-1');
      const list = captured.lines.find((line) => line['correlationId'] === 'list-1');
      expect(probe).to.include({ msg: 'request', level: LEVEL.debug, status: 200 });
      expect(list).to.include({ msg: 'request', level: LEVEL.info, status: 200 });
    });
  });
});
