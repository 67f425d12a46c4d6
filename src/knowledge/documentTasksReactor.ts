import { PURGE_RECORD_PREFIX } from '../commands/aggregate.js';
import { documentEvents } from '../domain/document/events.js';
import type { Caller } from '../commands/context.js';
import { DomainError } from '../domain/shared/index.js';
import type { Logger } from '../log.js';
import type { Reactor } from '../workers/reactors.js';

/**
 * Purges the records of the tasks that ingested a deleted document: a task's input names the
 * uploaded file and its result the document's title, and a deleted document leaves nothing readable
 * (its task leaves `GET /tasks`, the event log and, once scrubbed, the disk). Idempotent: purging a
 * purged task does nothing. A task still running cannot be purged; it is left, and said.
 */
export function documentTasksReactor(deps: {
  purgeTask: (taskId: string, caller: Caller) => Promise<unknown>;
  log: Logger;
}): Reactor {
  return {
    name: 'document_tasks',
    handles: ['DocumentDeleted'],
    async react(recorded) {
      if (!recorded.streamName.startsWith(PURGE_RECORD_PREFIX)) return;
      const event = documentEvents.decode(recorded);
      if (event.type !== 'DocumentDeleted') return;
      const caller = { actorId: recorded.metadata.actorId, correlationId: recorded.metadata.correlationId };
      for (const taskId of event.data.tasks) {
        await deps.purgeTask(taskId, caller).catch((error: unknown) => {
          if (!(error instanceof DomainError)) throw error;
          deps.log.warn(
            { docId: event.data.docId, taskId, reason: error.code },
            'task of a deleted document kept',
          );
        });
      }
    },
  };
}
