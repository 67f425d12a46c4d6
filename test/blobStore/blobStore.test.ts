import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  BlobMissingError,
  BlobStoreUnavailableError,
  type BlobStore,
} from '../../src/blobStore/blobStore.js';
import type * as BlobStoreModule from '../../src/blobStore/blobStore.js';
import { createFileBlobStore } from '../../src/blobStore/fileBlobStore.js';
import { openBlobStore } from '../../src/blobStore/openBlobStore.js';
import { silentLogger } from '../../src/log.js';
import { isServiceUnavailable } from '../../src/unavailable.js';
import { blobStoreContract } from '../contracts/blobStore.contract.js';

const temporaryDir = (): string => mkdtempSync(join(tmpdir(), 'archivist-blobs-'));

blobStoreContract('file', async () => {
  const dir = temporaryDir();
  const store = createFileBlobStore(join(dir, 'blobs'));
  return {
    store,
    dispose: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('file blob store', () => {
  let dir: string;
  const opened: BlobStore[] = [];
  /** A store the test closes afterwards (it holds a handle on its folder). */
  const createStore = (folder: string): BlobStore => {
    const store = createFileBlobStore(folder);
    opened.push(store);
    return store;
  };
  beforeEach(() => {
    dir = temporaryDir();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps each blob as one file named after it, with no partial file left', async () => {
    const store = createStore(join(dir, 'blobs'));
    const name = await store.put(new TextEncoder().encode('# Hello\n'));
    expect(readdirSync(join(dir, 'blobs'))).to.deep.equal([name]);
    await store.delete(name);
    expect(readdirSync(join(dir, 'blobs'))).to.deep.equal([]);
  });

  it('answers a put as unavailable when its folder was removed, and makes the folder again for the next', async () => {
    const store = createStore(join(dir, 'blobs'));
    const kept = await store.put(new Uint8Array([1]));
    rmSync(join(dir, 'blobs'), { recursive: true });
    let refused: unknown = null;
    await store.put(new Uint8Array([2])).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(BlobStoreUnavailableError);
    expect((refused as Error).message).to.include(join(dir, 'blobs'));
    let missing: unknown = null;
    await store.get(kept).catch((error: unknown) => (missing = error));
    expect(missing).to.be.instanceOf(BlobMissingError);
    const name = await store.put(new Uint8Array([3]));
    expect([...(await store.get(name))]).to.deep.equal([3]);
    expect(readdirSync(join(dir, 'blobs'))).to.deep.equal([name]);
  });

  it('is unhealthy, saying why, when its folder cannot be made, and healthy once it can', async () => {
    const blocked = join(dir, 'blobs');
    writeFileSync(blocked, 'a file where the folder should be');
    const store = createStore(blocked);
    const health = await store.health();
    expect(health.healthy).to.equal(false);
    expect(health.reason).to.include(blocked);
    rmSync(blocked);
    expect(await store.health()).to.deep.equal({ healthy: true, reason: null });
    const name = await store.put(new Uint8Array([1]));
    expect([...(await store.get(name))]).to.deep.equal([1]);
  });
});

describe('openBlobStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = temporaryDir();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const config = (blobStore: 'file' | 'nats', natsUrl: string | null = null) => ({
    blobStore,
    dataDir: dir,
    natsUrl,
    engineTimeoutMs: 5_000,
  });

  it('BLOB_STORE=file: blobs are files under DATA_DIR/blobs', async () => {
    const store = await openBlobStore(config('file'), silentLogger);
    const name = await store.put(new Uint8Array([1, 2]));
    expect(readdirSync(join(dir, 'blobs'))).to.deep.equal([name]);
    await store.close();
  });

  it('BLOB_STORE=nats without a NATS URL is refused', async () => {
    let refused: unknown = null;
    await openBlobStore(config('nats'), silentLogger).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(Error);
    expect((refused as Error).message).to.include('NATS_URL');
  });
});

describe('blob store errors', () => {
  it('an unavailable store is a service that cannot serve now (503); a missing blob is not', () => {
    expect(isServiceUnavailable(new BlobStoreUnavailableError('down'))).to.equal(true);
    expect(isServiceUnavailable(new BlobMissingError('gone'))).to.equal(false);
  });

  it('are recognised when made by another copy of the module (a lazily imported adapter)', async () => {
    const copy = (await import(
      `../../src/blobStore/blobStore.js?copy=${Date.now()}`
    )) as typeof BlobStoreModule;
    expect(copy.BlobMissingError).not.to.equal(BlobMissingError);
    expect(new copy.BlobMissingError('gone')).to.be.instanceOf(BlobMissingError);
    expect(new copy.BlobStoreUnavailableError('down')).to.be.instanceOf(BlobStoreUnavailableError);
    expect(isServiceUnavailable(new copy.BlobStoreUnavailableError('down'))).to.equal(true);
    expect(new copy.BlobMissingError('gone')).not.to.be.instanceOf(BlobStoreUnavailableError);
  });
});
