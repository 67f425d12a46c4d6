import { taskEvents } from '../domain/task/events.js';
import type { TaskStatus } from '../domain/task/decider.js';
import type { Projection } from './projection.js';

export const TASKS = 'tasks';

/** A background task as queries see it. Times are ISO 8601 (the issuing command's clock). */
// A type alias, not an interface: aliases are assignable to the read store's `Doc` record type.
export type TaskView = {
  id: string;
  jobType: string;
  status: TaskStatus;
  progress: number;
  message: string | null;
  result: Record<string, unknown> | null;
  error: string | null;
  failureReason: string | null;
  attempt: number;
  createdBy: string;
  /** On whose behalf the task runs (may differ from `createdBy` when the product acts for a user). */
  owner: string;
  createdAt: string;
  /** Global position of `TaskCreated`: orders tasks strictly (timestamps can tie). */
  sequence: number;
  startedAt: string | null;
  completedAt: string | null;
  /**
   * Last recorded step (creation, start, progress, outcome). Liveness itself is a lease outside
   * the log; the watchdog uses this only to pick which running tasks to look at.
   */
  lastActivityAt: string;
  /** Number of events in the task's stream, for SSE clients resuming with Last-Event-ID. */
  version: number;
};

export const tasksProjection: Projection = {
  name: 'tasks',
  // 2: tasks carry their owner.
  version: 2,
  handles: taskEvents.types,
  collections: [{ name: TASKS, indexes: ['status', 'sequence', 'createdAt', 'lastActivityAt', 'owner'] }],
  async apply(recorded, view) {
    const event = taskEvents.decode(recorded);
    const now = recorded.metadata.now;
    const taskId = event.data.taskId;
    // Every task event is a sign of life and a new stream version.
    const base = { version: recorded.streamVersion, lastActivityAt: now };
    switch (event.type) {
      case 'TaskCreated': {
        const task: TaskView = {
          id: taskId,
          jobType: event.data.jobType,
          status: 'pending',
          progress: 0,
          message: null,
          result: null,
          error: null,
          failureReason: null,
          attempt: 0,
          createdBy: recorded.metadata.actorId,
          owner: event.data.owner,
          createdAt: now,
          sequence: recorded.position,
          startedAt: null,
          completedAt: null,
          lastActivityAt: now,
          version: recorded.streamVersion,
        };
        view.put(TASKS, task);
        return;
      }
      case 'TaskStarted':
        return view.patch(TASKS, taskId, {
          ...base,
          status: 'running',
          attempt: event.data.attempt,
          startedAt: now,
        });
      case 'TaskResumed':
        return view.patch(TASKS, taskId, {
          ...base,
          status: 'running',
          attempt: event.data.attempt,
          message: `Resumed: ${event.data.reason}`,
        });
      case 'TaskProgressed':
        return view.patch(TASKS, taskId, {
          ...base,
          progress: event.data.progress,
          message: event.data.message,
        });
      case 'TaskHeartbeat':
        return view.patch(TASKS, taskId, base);
      case 'TaskYielded':
        return view.patch(TASKS, taskId, { ...base, message: `Waiting for an engine: ${event.data.reason}` });
      case 'TaskCompleted':
        return view.patch(TASKS, taskId, {
          ...base,
          status: 'completed',
          progress: 1,
          result: event.data.result,
          completedAt: now,
        });
      case 'TaskFailed':
        return view.patch(TASKS, taskId, {
          ...base,
          status: 'failed',
          error: event.data.error,
          failureReason: event.data.reason,
          completedAt: now,
        });
      case 'TaskCancelled':
        return view.patch(TASKS, taskId, {
          ...base,
          status: 'cancelled',
          message: event.data.reason ? `Cancelled: ${event.data.reason}` : 'Cancelled',
          completedAt: now,
        });
      case 'TaskPurged':
        return view.delete(TASKS, taskId);
    }
  },
};
