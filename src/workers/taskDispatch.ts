import type { Bus } from '../bus/bus.js';
import type { Projection } from '../projections/projection.js';
import { taskCancelledSubject, taskQueue } from './jobs.js';

/**
 * Hands tasks to workers: each `TaskCreated` becomes a job on its type's work queue, each
 * `TaskCancelled` a notification to the attempt running it. It runs as a projection so that it
 * has a checkpoint: a crash between an append and the enqueue only delays the job, never loses it
 * (the job id is the task id, so an enqueue repeated after a crash is deduplicated, and a worker
 * given a task that is already finished just acknowledges it).
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
        const jobType = String(event.data['jobType']);
        await bus.enqueue(taskQueue(jobType), {
          id: taskId,
          payload: { taskId, jobType, correlationId: event.metadata.correlationId },
        });
      } else {
        bus.publish(taskCancelledSubject(taskId), { taskId });
      }
    },
  };
}
