import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import Koa from 'koa';
import request from 'supertest';
import { MEMORY_BYTES_PER_REQUEST, multipartBody, multipartOf } from '../../src/http/multipart.js';

const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** A file of `size` bytes whose content differs at every offset, so a lost or moved chunk shows. */
function fileOf(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i += 1) bytes[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return bytes;
}

describe('multipart bodies: small files in memory, the rest in temporary files', function () {
  this.timeout(20_000);
  let uploadDir = '';
  /** What the handler saw: each file's name, size and hash, and the temporary files present then. */
  let seen: { files: Array<{ name: string; size: number; sha: string }>; onDisk: string[] } | null = null;

  const app = () => {
    const koa = new Koa();
    koa.use(multipartBody({ uploadDir, maxFileBytes: 20_000_000, maxFiles: 10, bodyIdleTimeoutMs: 5_000 }));
    koa.use(async (ctx) => {
      const { files } = multipartOf(ctx.state);
      const read = await Promise.all(
        files.map(async (file) => {
          const bytes = await file.read();
          return { name: file.fileName, size: file.size, sha: sha(bytes) };
        }),
      );
      seen = { files: read, onDisk: await readdir(uploadDir) };
      ctx.body = { ok: true };
    });
    return koa.callback();
  };

  beforeEach(async () => {
    uploadDir = await mkdtemp(join(tmpdir(), 'archivist-multipart-'));
    seen = null;
  });
  afterEach(() => rm(uploadDir, { recursive: true, force: true }));

  it('gives back every file whole, in the order sent, whether held in memory or spilled to disk', async () => {
    const small = fileOf(10_000, 1);
    // Uses up most of the request's memory, so the next file goes to disk part-way through.
    const large = fileOf(MEMORY_BYTES_PER_REQUEST - 20_000, 2);
    const straddling = fileOf(200_000, 3);
    const huge = fileOf(MEMORY_BYTES_PER_REQUEST * 2, 4);
    await request(app())
      .post('/')
      .attach('files', small, 'small.md')
      .attach('files', large, 'large.bin')
      .attach('files', straddling, 'straddling.bin')
      .attach('files', huge, 'huge.bin')
      .expect(200);
    expect(seen!.files).to.deep.equal([
      { name: 'small.md', size: small.length, sha: sha(small) },
      { name: 'large.bin', size: large.length, sha: sha(large) },
      { name: 'straddling.bin', size: straddling.length, sha: sha(straddling) },
      { name: 'huge.bin', size: huge.length, sha: sha(huge) },
    ]);
    // The two files past the request's memory were on disk while the handler ran; none are left.
    expect(seen!.onDisk).to.have.length(2);
    expect(await readdir(uploadDir)).to.deep.equal([]);
  });

  it('writes nothing to disk for a request whose files fit in its memory', async () => {
    const files = [fileOf(30_000, 5), fileOf(0, 6), fileOf(70_000, 7)];
    let sending = request(app()).post('/');
    files.forEach((file, at) => (sending = sending.attach('file', file, `f${at}.txt`)));
    await sending.expect(200);
    expect(seen!.files.map((file) => file.sha)).to.deep.equal(files.map(sha));
    expect(seen!.onDisk).to.deep.equal([]);
  });
});
