import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { BlobMissingError, createFileBlobStore } from '../../src/knowledge/blobStore.js';
import { expectRejection } from '../support/expectRejection.js';

describe('file blob store (uploads waiting for their ingestion job)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'blobs-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('gives back the bytes it stored, under a fresh name, with no partial file left', async () => {
    const blobs = createFileBlobStore(join(dir, 'blobs'));
    const name = await blobs.put(new TextEncoder().encode('# Hello\n'));
    expect(name).to.match(/^[0-9a-f-]{36}$/);
    expect((await blobs.get(name)).toString('utf8')).to.equal('# Hello\n');
    expect(readdirSync(join(dir, 'blobs'))).to.deep.equal([name]);
  });

  it('deletes a blob, and deleting it again (a redelivered job) is no error', async () => {
    const blobs = createFileBlobStore(join(dir, 'blobs'));
    const name = await blobs.put(new Uint8Array([1, 2, 3]));
    await blobs.delete(name);
    await blobs.delete(name);
    expect(readdirSync(join(dir, 'blobs'))).to.deep.equal([]);
    await expectRejection(blobs.get(name), BlobMissingError);
  });

  it('refuses names that are not its own (no path outside its folder)', async () => {
    const blobs = createFileBlobStore(join(dir, 'blobs'));
    for (const name of ['../secret', 'a/b', '']) await expectRejection(blobs.get(name), BlobMissingError);
  });
});
