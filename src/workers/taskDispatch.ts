import type { Bus } from '../bus/bus.js';
import type { Projection } from '../projections/projection.js';
import { enqueueTask, taskCancelledSubject } from './jobs.js';

/**
 * Hands tasks to workers: each `TaskCreated` becomes a job on its type's work queue, each
 * `TaskCancelled` a notification to the attempt running it. It runs as a projection so that it
 * has a checkpoint: a crash between an append and the enqueue only delays the job, never loses it
 * (`enqueueTask` makes an enqueue repeated after a crash harmless).
 */
export function taskDispatchProjection(bus: Bus): Projection {
  return {
    name: 'task_dispatch',
    version: 1,
    handles: ['TaskCreated', 'TaskCancelled'],
    collections: [],
    async apply(event) {
      const taskId = String(event.data['taskId']);
      if (event.type === 'TaskCreated') {
        await enqueueTask(bus, {
          taskId,
          jobType: String(event.data['jobType']),
          correlationId: event.metadata.correlationId,
        });
      } else {
        bus.publish(taskCancelledSubject(taskId), { taskId });
      }
    },
  };
}
