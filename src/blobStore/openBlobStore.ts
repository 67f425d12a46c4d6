import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { BlobStore } from './blobStore.js';
import { createFileBlobStore } from './fileBlobStore.js';

/**
 * The configured blob store: files under `DATA_DIR/blobs`, or the object store of the NATS server
 * at `NATS_URL`. The NATS client is imported only then, as `src/adapters.ts` does: an embedded
 * deployment should not pay for loading it.
 */
export async function openBlobStore(
  config: Pick<Config, 'blobStore' | 'dataDir' | 'natsUrl' | 'engineTimeoutMs'>,
  log: Logger,
): Promise<BlobStore> {
  switch (config.blobStore) {
    case 'file':
      return createFileBlobStore(join(config.dataDir, 'blobs'));
    case 'nats': {
      // loadConfig requires NATS_URL with BLOB_STORE=nats; a hand-made config may still lack it.
      if (!config.natsUrl) throw new Error('BLOB_STORE=nats needs NATS_URL');
      const { createNatsBlobStore } = await import('./natsBlobStore.js');
      return createNatsBlobStore({
        url: config.natsUrl,
        timeoutMs: config.engineTimeoutMs,
        log: log.child({ component: 'blobs' }),
      });
    }
  }
}
