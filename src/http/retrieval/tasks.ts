import type { Caller } from '../../commands/context.js';
import type { TaskCommands } from '../../commands/aggregates.js';
import { snakeCase } from '../snakeCase.js';
import { isFinished } from '../../domain/task/decider.js';
import { TERMINAL_TASK_EVENTS, taskStream } from '../../domain/task/events.js';
import type { EventStore, RecordedEvent } from '../../eventStore/eventStore.js';
import type { ReadModels } from '../../projections/readModels.js';
import { TASKS, type TaskView } from '../../projections/tasksProjection.js';
import type { Filter } from '../../readStore/readStore.js';
import { HttpError } from '../httpError.js';
import { defineRoute } from '../route.js';
import { openSse, pumpSse } from '../sse.js';
import { errorResponses, errorSchema, nullableDateTime, nullableString, dateTime } from './schemas.js';

export interface TaskRouteDeps {
  tasks: TaskCommands;
  readModels: ReadModels;
  eventStore: Pick<EventStore, 'subscribeToStream' | 'streamInfo'>;
  /** How often an idle stream of task events sends a comment line. */
  sseKeepAliveMs: number;
}

const STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;

const taskSchema = {
  type: 'object',
  required: ['task_id', 'status', 'progress', 'result', 'error', 'created_at', 'started_at', 'completed_at'],
  properties: {
    task_id: { type: 'string', format: 'uuid' },
    status: { type: 'string', enum: STATUSES },
    progress: { type: 'number', minimum: 0, maximum: 1 },
    result: { type: ['object', 'null'] },
    error: nullableString,
    created_at: dateTime,
    started_at: nullableDateTime,
    completed_at: nullableDateTime,
    task_type: { type: 'string', description: 'What kind of work the task does' },
    message: { ...nullableString, description: 'Latest progress message' },
    attempt: {
      type: 'integer',
      description: 'Attempt number; above 1 when the task was resumed after an interruption',
    },
  },
} as const;

function toTaskResource(task: TaskView): Record<string, unknown> {
  return {
    task_id: task.id,
    status: task.status,
    progress: task.progress,
    result: task.result,
    error: task.error,
    created_at: task.createdAt,
    started_at: task.startedAt,
    completed_at: task.completedAt,
    task_type: task.jobType,
    message: task.message,
    attempt: task.attempt,
  };
}

const taskIdParams = {
  type: 'object',
  required: ['task_id'],
  properties: { task_id: { type: 'string', description: 'Task id (UUID)' } },
} as const;

/** One task event as an SSE payload: snake_case fields, the task id, its version and time. */
function toEventPayload(event: RecordedEvent): Record<string, unknown> {
  const fields = Object.fromEntries(
    Object.entries(event.data)
      .filter(([key]) => key !== 'taskId')
      .map(([key, value]) => [snakeCase(key), value]),
  );
  return {
    type: event.type,
    task_id: event.data['taskId'],
    version: event.streamVersion,
    at: event.metadata.now,
    ...fields,
  };
}

/**
 * Whose tasks a caller may see: everyone's (null) for a service and an administrator; a user's own
 * (created by them or run on their behalf) otherwise, since a task's input and result name files
 * and titles.
 */
function ownerOf(caller: Caller): string | null {
  const reader = caller.reader;
  return !reader || reader.kind === 'service' || reader.admin ? null : caller.actorId;
}

export function taskRoutes(deps: TaskRouteDeps) {
  async function findTask(taskId: string, caller: Caller): Promise<TaskView> {
    const task = await deps.readModels.get<TaskView>(TASKS, taskId);
    const mine = ownerOf(caller);
    if (!task || (mine !== null && task.owner !== mine && task.createdBy !== mine))
      throw new HttpError(404, 'task_not_found', `Task ${taskId} does not exist`);
    return task;
  }

  return [
    defineRoute({
      method: 'get',
      path: '/tasks',
      operationId: 'listTasks',
      summary: 'List background tasks, newest first',
      tags: ['Tasks'],
      query: {
        type: 'object',
        properties: {
          status: { type: 'string', enum: STATUSES, description: 'Only tasks in this state' },
          limit: {
            type: 'integer',
            minimum: 1,
            maximum: 200,
            default: 50,
            description: 'Most tasks returned (1-200)',
          },
        },
        required: ['limit'],
        additionalProperties: false,
      },
      responses: {
        200: {
          description: 'Tasks and the number matching the filter',
          schema: {
            type: 'object',
            required: ['tasks', 'total'],
            properties: { tasks: { type: 'array', items: taskSchema }, total: { type: 'integer' } },
          },
        },
        ...errorResponses,
      },
      async handle({ query, caller }) {
        const mine = ownerOf(caller);
        const filter: Filter = {
          ...(query.status ? { status: query.status } : {}),
          ...(mine ? { owner: mine } : {}),
        };
        const [found, total] = await Promise.all([
          deps.readModels.find<TaskView>(TASKS, { filter, sort: [['sequence', -1]], limit: query.limit }),
          deps.readModels.count(TASKS, filter),
        ]);
        return { body: { tasks: found.map(toTaskResource), total } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/tasks/{task_id}',
      operationId: 'getTask',
      summary: 'A background task',
      tags: ['Tasks'],
      params: taskIdParams,
      responses: {
        200: { description: 'The task', schema: taskSchema },
        404: { description: 'No such task', schema: errorSchema },
        ...errorResponses,
      },
      async handle({ params, caller }) {
        return { body: toTaskResource(await findTask(params.task_id, caller)) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/tasks/{task_id}',
      operationId: 'cancelTask',
      summary: 'Cancel a pending or running task',
      description:
        'A running task stops at its next step. Cancelling a cancelled task again answers the same; a completed or failed task cannot be cancelled (409).',
      tags: ['Tasks'],
      readAfterWrite: [TASKS],
      params: taskIdParams,
      responses: {
        200: {
          description: 'Cancelled',
          schema: {
            type: 'object',
            required: ['task_id', 'status', 'message'],
            properties: {
              task_id: { type: 'string' },
              status: { type: 'string', enum: ['cancelled'] },
              message: { type: 'string' },
            },
          },
        },
        404: { description: 'No such task', schema: errorSchema },
        409: { description: 'The task already completed or failed', schema: errorSchema },
        ...errorResponses,
      },
      async handle({ params, caller }) {
        if (ownerOf(caller) !== null) await findTask(params.task_id, caller);
        // The decider answers an unknown task with task_not_found (404) from the task's own stream.
        const outcome = await deps.tasks.execute(
          'CancelTask',
          { taskId: params.task_id, reason: null },
          caller,
        );
        const message = outcome.appended.length > 0 ? 'Task cancelled' : 'Task was already cancelled';
        return {
          body: { task_id: params.task_id, status: 'cancelled', message },
          position: outcome.position,
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/tasks/{task_id}/events',
      operationId: 'followTask',
      summary: "Follow a task's events live (Server-Sent Events)",
      description:
        "Replays the task's events from the start — or after the `Last-Event-ID` header (an event's `id` is its version in the task's stream) — then follows new ones until the task completes, fails or is cancelled, and ends the stream. Each event's name is its type (TaskCreated, TaskStarted, TaskResumed, TaskYielded, TaskProgressed, TaskHeartbeat, TaskCompleted, TaskFailed, TaskCancelled); its data holds task_id, version, at and the event's fields. A client that reconnects after the end gets 204, which tells EventSource to stop.",
      tags: ['Tasks'],
      params: taskIdParams,
      responses: {
        200: {
          description: 'The event stream',
          contentType: 'text/event-stream',
          schema: { type: 'string' },
        },
        204: { description: 'The task is finished and the client has seen all its events' },
        404: { description: 'No such task', schema: errorSchema },
        ...errorResponses,
      },
      async handle({ params, koa, signal, log, caller }) {
        const task = await findTask(params.task_id, caller);
        const lastEventId = Number.parseInt(koa.get('last-event-id'), 10);
        const after = Number.isInteger(lastEventId) && lastEventId > 0 ? lastEventId : 0;
        const stream = taskStream(params.task_id);
        if (isFinished(task.status) && after >= (await deps.eventStore.streamInfo(stream)).version) {
          return { status: 204, body: null };
        }
        const sse = openSse(koa, signal, deps.sseKeepAliveMs);
        const subscription = deps.eventStore.subscribeToStream(stream, { fromVersion: after + 1, signal });
        pumpSse(sse, { signal, log }, async () => {
          try {
            for await (const batch of subscription) {
              for (const event of batch) {
                sse.send({ id: event.streamVersion, event: event.type, data: toEventPayload(event) });
                if ((TERMINAL_TASK_EVENTS as readonly string[]).includes(event.type)) return;
              }
            }
          } finally {
            subscription.close();
          }
        });
      },
    }),
  ];
}
