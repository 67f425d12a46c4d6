import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { BlobStore } from '../../src/blobStore/blobStore.js';
import { BlobMissingError, BlobStoreUnavailableError } from '../../src/blobStore/blobStore.js';
import { expectRejection } from '../support/expectRejection.js';

export interface BlobStoreFixture {
  store: BlobStore;
  dispose(): Promise<void>;
}

const MB = 1024 * 1024;

/** Names a store never gave out; several would reach a path or a subject if not refused. */
const HOSTILE_NAMES = [
  '../etc/passwd',
  '/etc/passwd',
  '..',
  'a/b',
  '',
  'x'.repeat(100_000),
  '$O.archivist-blobs.M.>',
  '*',
  randomUUID().toUpperCase(),
  `${randomUUID()}\n`,
];

function expectSameBytes(actual: Buffer, expected: Uint8Array): void {
  expect(actual.length, 'length').to.equal(expected.length);
  // Compared whole, not through chai's deep equality, which would walk 30 million elements.
  expect(actual.equals(expected), 'bytes').to.equal(true);
}

/** The BlobStore port's semantics; every adapter must pass it unchanged. */
export function blobStoreContract(adapter: string, create: () => Promise<BlobStoreFixture>): void {
  describe(`BlobStore contract: ${adapter}`, function () {
    this.timeout(60_000);
    let fixture: BlobStoreFixture;
    let store: BlobStore;
    beforeEach(async () => {
      fixture = await create();
      store = fixture.store;
    });
    afterEach(async () => fixture.dispose());

    describe('gives back exactly the bytes it stored', () => {
      const cases: [string, () => Uint8Array][] = [
        ['no bytes', () => new Uint8Array(0)],
        ['one byte', () => new Uint8Array([0])],
        ['every byte value', () => Uint8Array.from({ length: 512 }, (_, i) => i % 256)],
        ['5 MB of random bytes', () => randomBytes(5 * MB)],
        ['30 MB of random bytes', () => randomBytes(30 * MB)],
      ];
      for (const [what, bytes] of cases) {
        it(what, async () => {
          const stored = bytes();
          const name = await store.put(stored);
          expectSameBytes(await store.get(name), stored);
        });
      }

      it('a view into a larger buffer: only the viewed bytes', async () => {
        const whole = Buffer.from('before|inside|after');
        const name = await store.put(whole.subarray(7, 13));
        expect((await store.get(name)).toString('utf8')).to.equal('inside');
      });
    });

    it('gives every blob a fresh name, even for the same bytes', async () => {
      const bytes = new TextEncoder().encode('same content');
      const first = await store.put(bytes);
      const second = await store.put(bytes);
      expect(first).to.not.equal(second);
      expect(first).to.match(/^[0-9a-f-]{36}$/);
      await store.delete(first);
      expect((await store.get(second)).toString('utf8')).to.equal('same content');
    });

    it('stores 20 blobs put at once, each retrievable under its own name', async () => {
      const contents = Array.from({ length: 20 }, (_, i) => randomBytes(1_000 + i * 37_000));
      const names = await Promise.all(contents.map((bytes) => store.put(bytes)));
      expect(new Set(names).size).to.equal(20);
      const read = await Promise.all(names.map((name) => store.get(name)));
      read.forEach((bytes, i) => expectSameBytes(bytes, contents[i]!));
    });

    it('has no blob under a name it never gave out', async () => {
      await expectRejection(store.get(randomUUID()), BlobMissingError);
    });

    it('refuses names it could not have given out, for get and delete alike', async () => {
      for (const name of HOSTILE_NAMES) {
        const shown = JSON.stringify(name.slice(0, 40));
        const error = await expectRejection(store.get(name), BlobMissingError);
        expect(error.message.length, `message for ${shown}`).to.be.below(200);
        await expectRejection(store.delete(name), BlobMissingError);
      }
    });

    it('deletes a blob; deleting it again, or one never stored, is no error', async () => {
      const name = await store.put(new Uint8Array([1, 2, 3]));
      await store.delete(name);
      await store.delete(name);
      await store.delete(randomUUID());
      await expectRejection(store.get(name), BlobMissingError);
    });

    it('reports itself healthy', async () => {
      expect(await store.health()).to.deep.equal({ healthy: true, reason: null });
    });

    it('once closed, says so in health and refuses calls as unavailable', async () => {
      const name = await store.put(new Uint8Array([7]));
      await store.close();
      await store.close();
      const health = await store.health();
      expect(health.healthy).to.equal(false);
      expect(health.reason).to.be.a('string');
      await expectRejection(store.put(new Uint8Array([8])), BlobStoreUnavailableError);
      await expectRejection(store.get(name), BlobStoreUnavailableError);
      await expectRejection(store.delete(name), BlobStoreUnavailableError);
    });
  });
}
