import { BlobMissingError, type BlobStore } from '../blobStore/blobStore.js';
import { TERMINAL_TASK_EVENTS, taskStream } from '../domain/task/events.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { Reactor } from '../workers/reactors.js';
import { uploadBlobs } from './uploadBlobs.js';

/**
 * Deletes an upload's bytes (a file's, a bulk upload's files', an archive's) once its task has
 * ended, however it ended: completed, failed (by its worker, by running out of attempts, or by the
 * watchdog after its worker was lost) or cancelled.
 * The job deletes them itself when it finishes; this covers every end the job never sees. Blobs
 * live in a store that outlives processes (NATS's object store), so nothing else would. Idempotent:
 * deleting a deleted blob does nothing.
 */
export function blobReleaseReactor(deps: {
  eventStore: Pick<EventStore, 'readStream'>;
  blobs: Pick<BlobStore, 'delete'>;
}): Reactor {
  return {
    name: 'upload_blobs',
    handles: TERMINAL_TASK_EVENTS,
    async react(event) {
      const [created] = await deps.eventStore.readStream(taskStream(String(event.data['taskId'])), {
        maxCount: 1,
      });
      if (created?.type !== 'TaskCreated') return;
      for (const blob of uploadBlobs(String(created.data['jobType']), created.data['input'])) {
        await deps.blobs.delete(blob).catch((error: unknown) => {
          // A name that is no blob's (an input from before blobs had names like today's): nothing to delete.
          if (!(error instanceof BlobMissingError)) throw error;
        });
      }
    },
  };
}
