import type { Decider, EventDraft } from '../shared/index.js';
import { InvalidStateError, NotFoundError, RuleViolationError } from '../shared/index.js';
import type { TaskCommand } from './commands.js';
import type { TaskEvent } from './events.js';
import { taskStream } from './events.js';

export type TaskStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

export type TaskState =
  | { status: 'none' }
  | {
      status: TaskStatus;
      taskId: string;
      jobType: string;
      /** The job's input, as created: what an attempt runs on. */
      input: Record<string, unknown>;
      owner: string;
      attempt: number;
      progress: number;
      /** Attempts that yielded to an engine outage: they do not count against the job's attempts. */
      yielded: number;
      /** Whether the current attempt yielded (so the next one resumes it, whatever the job). */
      yielding: boolean;
    };

const FINISHED: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

export function isFinished(status: TaskState['status']): boolean {
  return FINISHED.has(status);
}

type Draft = EventDraft<TaskEvent>;

function decide(command: TaskCommand, state: TaskState): Draft[] {
  const { taskId } = command.data;
  if (command.type === 'CreateTask') {
    if (state.status !== 'none') return [];
    const { jobType, input, owner } = command.data;
    return [
      { type: 'TaskCreated', data: { taskId, jobType, input, owner: owner ?? command.metadata.actorId } },
    ];
  }
  if (command.type === 'PurgeTask' && state.status === 'none') return [];
  if (state.status === 'none')
    throw new NotFoundError('task_not_found', `Task ${taskId} does not exist`, { taskId });

  switch (command.type) {
    case 'BeginAttempt': {
      const { workerId, maxAttempts, resumable } = command.data;
      if (state.status === 'pending')
        return [{ type: 'TaskStarted', data: { taskId, attempt: 1, workerId } }];
      if (state.status !== 'running') return [];
      // The attempt before stopped for an outage, by our own code, at a point it chose: resumed, and
      // not counted.
      if (state.yielding) {
        return [resumedBy(state, workerId, `attempt ${state.attempt} yielded to an engine outage`)];
      }
      if (!resumable) {
        return [
          failed(
            taskId,
            'worker_lost',
            `attempt ${state.attempt} was interrupted and this job cannot resume`,
          ),
        ];
      }
      if (state.attempt - state.yielded >= maxAttempts) {
        return [
          failed(
            taskId,
            'attempts_exhausted',
            `interrupted ${state.attempt - state.yielded} times; giving up after ${maxAttempts} attempts`,
          ),
        ];
      }
      return [resumedBy(state, workerId, `attempt ${state.attempt} was interrupted`)];
    }
    case 'ReportProgress': {
      assertCurrentAttempt(state, taskId, command.data.attempt);
      const { progress, message } = command.data;
      if (!(progress >= 0 && progress <= 1)) {
        throw new RuleViolationError('invalid_progress', `Progress must be between 0 and 1, got ${progress}`);
      }
      return [
        { type: 'TaskProgressed', data: { taskId, progress: Math.max(progress, state.progress), message } },
      ];
    }
    case 'YieldAttempt':
      assertCurrentAttempt(state, taskId, command.data.attempt);
      if (state.yielding) return [];
      return [
        { type: 'TaskYielded', data: { taskId, attempt: command.data.attempt, reason: command.data.reason } },
      ];
    case 'CompleteTask':
      if (state.status === 'completed') return [];
      assertCurrentAttempt(state, taskId, command.data.attempt);
      return [{ type: 'TaskCompleted', data: { taskId, result: command.data.result } }];
    case 'FailTask':
      if (isFinished(state.status)) return [];
      if (command.data.attempt !== null) assertCurrentAttempt(state, taskId, command.data.attempt);
      return [failed(taskId, command.data.reason, command.data.error)];
    case 'CancelTask':
      if (state.status === 'cancelled') return [];
      if (command.data.onlyIfPending && state.status !== 'pending') return [];
      if (isFinished(state.status)) {
        throw new InvalidStateError(
          'task_finished',
          `Task ${taskId} is already ${state.status} and cannot be cancelled`,
          {
            taskId,
            status: state.status,
          },
        );
      }
      return [{ type: 'TaskCancelled', data: { taskId, reason: command.data.reason } }];
    case 'PurgeTask':
      if (!isFinished(state.status)) {
        throw new InvalidStateError(
          'task_not_finished',
          `Task ${taskId} is ${state.status}: cancel it before purging it`,
          { taskId, status: state.status },
        );
      }
      return [{ type: 'TaskPurged', data: { taskId, stream: taskStream(taskId) } }];
  }
}

/** The next attempt of a running task, by `workerId`, from the progress recorded so far. */
function resumedBy(state: Exclude<TaskState, { status: 'none' }>, workerId: string, reason: string): Draft {
  return {
    type: 'TaskResumed',
    data: { taskId: state.taskId, attempt: state.attempt + 1, workerId, reason, resumeFrom: state.progress },
  };
}

function failed(
  taskId: string,
  reason: Extract<TaskEvent, { type: 'TaskFailed' }>['data']['reason'],
  error: string,
): Draft {
  return { type: 'TaskFailed', data: { taskId, error, reason } };
}

/**
 * Work on a task must stop when it is no longer running (cancelled is the common case, so it has its
 * own code) or when another attempt took it over (the worker's lease expired and it was resumed).
 */
function assertCurrentAttempt(
  state: Exclude<TaskState, { status: 'none' }>,
  taskId: string,
  attempt: number,
): void {
  if (state.status === 'running') {
    if (state.attempt === attempt) return;
    throw new InvalidStateError(
      'attempt_superseded',
      `Attempt ${attempt} of task ${taskId} was superseded by attempt ${state.attempt}`,
      {
        taskId,
        attempt,
        current: state.attempt,
      },
    );
  }
  if (state.status === 'cancelled')
    throw new InvalidStateError('task_cancelled', `Task ${taskId} was cancelled`, { taskId });
  throw new InvalidStateError('task_not_running', `Task ${taskId} is ${state.status}, not running`, {
    taskId,
    status: state.status,
  });
}

function evolve(state: TaskState, event: TaskEvent): TaskState {
  if (event.type === 'TaskCreated') {
    return {
      status: 'pending',
      taskId: event.data.taskId,
      jobType: event.data.jobType,
      input: event.data.input,
      owner: event.data.owner,
      attempt: 0,
      progress: 0,
      yielded: 0,
      yielding: false,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'TaskStarted':
    case 'TaskResumed':
      return {
        ...state,
        status: 'running',
        attempt: event.data.attempt,
        yielded: state.yielded + (state.yielding ? 1 : 0),
        yielding: false,
      };
    case 'TaskYielded':
      return { ...state, yielding: true };
    case 'TaskProgressed':
      return { ...state, progress: event.data.progress };
    case 'TaskHeartbeat':
    case 'TaskPurged':
      return state;
    case 'TaskCompleted':
      return { ...state, status: 'completed', progress: 1 };
    case 'TaskFailed':
      return { ...state, status: 'failed' };
    case 'TaskCancelled':
      return { ...state, status: 'cancelled' };
  }
}

export const taskDecider: Decider<TaskCommand, TaskEvent, TaskState> = {
  decide,
  evolve,
  initialState: () => ({ status: 'none' }),
};
