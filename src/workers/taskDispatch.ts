import type { Bus } from '../bus/bus.js';
import { taskEvents } from '../domain/task/events.js';
import { enqueueTask, taskCancelledSubject } from './jobs.js';
import type { Reactor } from './reactors.js';

/**
 * Hands tasks to workers: each `TaskCreated` becomes a job on its type's work queue, keyed by the
 * event's id (so a reaction repeated after a crash enqueues nothing more), and each `TaskCancelled`
 * a notification to the attempt running it.
 */
export function taskDispatchReactor(bus: Bus): Reactor {
  return {
    name: 'task_dispatch',
    handles: ['TaskCreated', 'TaskCancelled'],
    async react(recorded) {
      const event = taskEvents.decode(recorded);
      if (event.type === 'TaskCreated') {
        await enqueueTask(bus, recorded.id, {
          taskId: event.data.taskId,
          jobType: event.data.jobType,
          correlationId: recorded.metadata.correlationId,
        });
      } else if (event.type === 'TaskCancelled') {
        bus.publish(taskCancelledSubject(event.data.taskId), { taskId: event.data.taskId });
      }
    },
  };
}
