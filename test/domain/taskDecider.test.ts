import { expect } from 'chai';
import type { Metadata } from '../../src/domain/shared/index.js';
import { spec } from '../../src/domain/shared/deciderSpec.js';
import { taskDecider } from '../../src/domain/task/decider.js';
import type { TaskCommand } from '../../src/domain/task/commands.js';
import type { TaskEvent } from '../../src/domain/task/events.js';
import type { EventDraft } from '../../src/domain/shared/index.js';

const metadata: Metadata = { now: '2026-11-22T10:00:00.000Z', actorId: 'user-1', correlationId: 'corr-1' };
const taskId = '6f1c1a8e-4a4e-4c57-9a55-0d5a3e0b9c11';
const cmd = <T extends TaskCommand['type']>(
  type: T,
  data: Extract<TaskCommand, { type: T }>['data'],
): TaskCommand => ({ type, data, metadata }) as TaskCommand;

const created: EventDraft<TaskEvent> = {
  type: 'TaskCreated',
  data: { taskId, jobType: 'echo', input: { n: 1 }, owner: 'user-1' },
};
const started: EventDraft<TaskEvent> = { type: 'TaskStarted', data: { taskId, attempt: 1, workerId: 'w1' } };
const halfway: EventDraft<TaskEvent> = {
  type: 'TaskProgressed',
  data: { taskId, progress: 0.5, message: 'half' },
};
const completed: EventDraft<TaskEvent> = { type: 'TaskCompleted', data: { taskId, result: { ok: true } } };
const begin = cmd('BeginAttempt', { taskId, workerId: 'w2', maxAttempts: 3, resumable: true });

describe('task decider', () => {
  it('creates a task once; creating it again changes nothing', () => {
    spec(taskDecider)
      .given([])
      .when(cmd('CreateTask', { taskId, jobType: 'echo', input: { n: 1 } }))
      .then([created]);
    spec(taskDecider)
      .given([created])
      .when(cmd('CreateTask', { taskId, jobType: 'echo', input: { n: 1 } }))
      .then([]);
  });

  it('starts a pending task as attempt 1', () => {
    spec(taskDecider)
      .given([created])
      .when(begin)
      .then([{ type: 'TaskStarted', data: { taskId, attempt: 1, workerId: 'w2' } }]);
  });

  it('resumes an interrupted running task from its last progress', () => {
    spec(taskDecider)
      .given([created, started, halfway])
      .when(begin)
      .then([
        {
          type: 'TaskResumed',
          data: { taskId, attempt: 2, workerId: 'w2', reason: 'attempt 1 was interrupted', resumeFrom: 0.5 },
        },
      ]);
  });

  it('does not count an attempt that yielded to an engine outage, however many there are', () => {
    const yielded = (attempt: number): EventDraft<TaskEvent> => ({
      type: 'TaskYielded',
      data: { taskId, attempt, reason: 'read store unavailable' },
    });
    const resumedAs = (attempt: number): EventDraft<TaskEvent> => ({
      type: 'TaskResumed',
      data: {
        taskId,
        attempt,
        workerId: 'w1',
        reason: `attempt ${attempt - 1} yielded to an engine outage`,
        resumeFrom: 0,
      },
    });
    spec(taskDecider)
      .given([created, started])
      .when(cmd('YieldAttempt', { taskId, attempt: 1, reason: 'read store unavailable' }))
      .then([yielded(1)]);
    // Yielding twice in one attempt records it once; a superseded attempt cannot yield.
    spec(taskDecider)
      .given([created, started, yielded(1)])
      .when(cmd('YieldAttempt', { taskId, attempt: 1, reason: 'again' }))
      .then([]);
    spec(taskDecider)
      .given([created, started, resumedAs(2)])
      .when(cmd('YieldAttempt', { taskId, attempt: 1, reason: 'late' }))
      .thenThrows('attempt_superseded');
    // Five outages in a row, then the job's three attempts are still all there.
    const outages = [1, 2, 3, 4, 5].flatMap((attempt) =>
      attempt === 1 ? [yielded(1)] : [resumedAs(attempt), yielded(attempt)],
    );
    spec(taskDecider)
      .given([created, started, ...outages])
      .when(begin)
      .then([
        {
          type: 'TaskResumed',
          data: {
            taskId,
            attempt: 6,
            workerId: 'w2',
            reason: 'attempt 5 yielded to an engine outage',
            resumeFrom: 0,
          },
        },
      ]);
    // A job that cannot resume is resumed after a yield too: it stopped where its own code chose.
    spec(taskDecider)
      .given([created, started, yielded(1)])
      .when(cmd('BeginAttempt', { taskId, workerId: 'w2', maxAttempts: 3, resumable: false }))
      .then([
        {
          type: 'TaskResumed',
          data: {
            taskId,
            attempt: 2,
            workerId: 'w2',
            reason: 'attempt 1 yielded to an engine outage',
            resumeFrom: 0,
          },
        },
      ]);
    // Crashes still count: after the outages, three interrupted attempts exhaust the job.
    spec(taskDecider)
      .given([created, started, ...outages, resumedAs(6), resumedAs(7), resumedAs(8)])
      .when(begin)
      .then([
        {
          type: 'TaskFailed',
          data: {
            taskId,
            reason: 'attempts_exhausted',
            error: 'interrupted 3 times; giving up after 3 attempts',
          },
        },
      ]);
  });

  it('fails an interrupted task that cannot resume, or has used every attempt', () => {
    spec(taskDecider)
      .given([created, started])
      .when(cmd('BeginAttempt', { taskId, workerId: 'w2', maxAttempts: 3, resumable: false }))
      .then([
        {
          type: 'TaskFailed',
          data: {
            taskId,
            reason: 'worker_lost',
            error: 'attempt 1 was interrupted and this job cannot resume',
          },
        },
      ]);
    const resumed: EventDraft<TaskEvent> = {
      type: 'TaskResumed',
      data: { taskId, attempt: 3, workerId: 'w1', reason: 'x', resumeFrom: 0 },
    };
    spec(taskDecider)
      .given([created, started, resumed])
      .when(begin)
      .then([
        {
          type: 'TaskFailed',
          data: {
            taskId,
            reason: 'attempts_exhausted',
            error: 'interrupted 3 times; giving up after 3 attempts',
          },
        },
      ]);
  });

  it('ignores a late delivery for a finished task', () => {
    spec(taskDecider).given([created, started, completed]).when(begin).then([]);
  });

  it('never lets progress go backwards and rejects progress outside 0..1', () => {
    spec(taskDecider)
      .given([created, started, halfway])
      .when(cmd('ReportProgress', { taskId, attempt: 1, progress: 0.2, message: 'late' }))
      .then([{ type: 'TaskProgressed', data: { taskId, progress: 0.5, message: 'late' } }]);
    spec(taskDecider)
      .given([created, started])
      .when(cmd('ReportProgress', { taskId, attempt: 1, progress: 1.5, message: null }))
      .thenThrows('invalid_progress');
  });

  it('stops work on a cancelled task with task_cancelled', () => {
    const cancelled: EventDraft<TaskEvent> = { type: 'TaskCancelled', data: { taskId, reason: null } };
    spec(taskDecider)
      .given([created, started, cancelled])
      .when(cmd('ReportProgress', { taskId, attempt: 1, progress: 0.7, message: null }))
      .thenThrows('task_cancelled');
    spec(taskDecider)
      .given([created, started, cancelled])
      .when(cmd('CompleteTask', { taskId, attempt: 1, result: null }))
      .thenThrows('task_cancelled');
  });

  it('cancels pending and running tasks, repeats harmlessly, and refuses finished ones', () => {
    const cancel = cmd('CancelTask', { taskId, reason: 'user' });
    const cancelled: EventDraft<TaskEvent> = { type: 'TaskCancelled', data: { taskId, reason: 'user' } };
    spec(taskDecider).given([created]).when(cancel).then([cancelled]);
    spec(taskDecider).given([created, started]).when(cancel).then([cancelled]);
    spec(taskDecider).given([created, started, cancelled]).when(cancel).then([]);
    spec(taskDecider).given([created, started, completed]).when(cancel).thenThrows('task_finished');
  });

  it('tells a worker whose attempt was superseded to stop', () => {
    const resumed: EventDraft<TaskEvent> = {
      type: 'TaskResumed',
      data: { taskId, attempt: 2, workerId: 'w2', reason: 'attempt 1 was interrupted', resumeFrom: 0 },
    };
    spec(taskDecider)
      .given([created, started, resumed])
      .when(cmd('ReportProgress', { taskId, attempt: 1, progress: 0.9, message: null }))
      .thenThrows('attempt_superseded');
    spec(taskDecider)
      .given([created, started, resumed])
      .when(cmd('CompleteTask', { taskId, attempt: 1, result: null }))
      .thenThrows('attempt_superseded');
    spec(taskDecider)
      .given([created, started, resumed])
      .when(cmd('ReportProgress', { taskId, attempt: 2, progress: 0.1, message: null }))
      .then([{ type: 'TaskProgressed', data: { taskId, progress: 0.1, message: null } }]);
  });

  it('creates a task for the owner it is given, by default for the actor who asks', () => {
    spec(taskDecider)
      .given([])
      .when(cmd('CreateTask', { taskId, jobType: 'echo', input: {}, owner: 'user-7' }))
      .then([{ type: 'TaskCreated', data: { taskId, jobType: 'echo', input: {}, owner: 'user-7' } }]);
  });

  it('still folds streams written by earlier versions (heartbeats included)', () => {
    const heartbeat: EventDraft<TaskEvent> = { type: 'TaskHeartbeat', data: { taskId, attempt: 1 } };
    spec(taskDecider)
      .given([created, started, heartbeat])
      .when(cmd('CompleteTask', { taskId, attempt: 1, result: null }))
      .then([{ type: 'TaskCompleted', data: { taskId, result: null } }]);
  });

  it('purges only a finished task, into a record that names its stream', () => {
    spec(taskDecider)
      .given([created, started])
      .when(cmd('PurgeTask', { taskId }))
      .thenThrows('task_not_finished');
    spec(taskDecider)
      .given([created, started, completed])
      .when(cmd('PurgeTask', { taskId }))
      .then([{ type: 'TaskPurged', data: { taskId, stream: `task-${taskId}` } }]);
    spec(taskDecider).given([]).when(cmd('PurgeTask', { taskId })).then([]);
  });

  it('fails a task from outside any attempt (watchdog), but not a finished one', () => {
    const fail = cmd('FailTask', {
      taskId,
      attempt: null,
      reason: 'worker_lost',
      error: 'no heartbeat for 60 s',
    });
    spec(taskDecider)
      .given([created, started])
      .when(fail)
      .then([
        { type: 'TaskFailed', data: { taskId, reason: 'worker_lost', error: 'no heartbeat for 60 s' } },
      ]);
    spec(taskDecider).given([created, started, completed]).when(fail).then([]);
  });

  it('reports an unknown task as task_not_found', () => {
    spec(taskDecider)
      .given([])
      .when(cmd('CancelTask', { taskId, reason: null }))
      .thenThrows('task_not_found');
  });

  it('the spec helper itself reports a wrong expectation', () => {
    expect(() => spec(taskDecider).given([]).when(begin).then([])).to.throw(/does not exist/);
    expect(() => spec(taskDecider).given([created]).when(begin).then([])).to.throw(/returned/);
  });
});
