import type { ActionCommands, TaskCommands } from '../commands/aggregates.js';
import { actionEvents } from '../domain/action/events.js';
import { taskEvents } from '../domain/task/events.js';
import type { Reactor } from '../workers/reactors.js';
import { TOOL_JOB, type ToolTaskInput, type ToolTaskResult } from './toolJob.js';
import { createTask } from '../commands/newTask.js';

const SYSTEM = 'system:actions';

/**
 * Runs confirmed actions, once. `ActionConfirmed` creates the tool task whose id is the action's:
 * however often the reaction is repeated (a crash before its checkpoint), the task stream exists
 * once and its job runs once. When that task ends, its outcome is recorded on the action
 * (`ActionExecuted` or `ActionFailed`), which the decider accepts once.
 */
export function actionReactor(deps: { actions: ActionCommands; tasks: TaskCommands }): Reactor {
  const { actions, tasks } = deps;
  return {
    name: 'tool_actions',
    handles: ['ActionConfirmed', 'TaskCompleted', 'TaskFailed', 'TaskCancelled'],
    async react(recorded) {
      const caller = { actorId: SYSTEM, correlationId: recorded.metadata.correlationId };
      if (recorded.type === 'ActionConfirmed') {
        const event = actionEvents.decode(recorded);
        const { state } = await actions.read(event.data.actionId);
        if (state.status !== 'Confirmed') return;
        const input: ToolTaskInput = {
          tool: state.tool,
          params: state.params,
          owner: state.owner,
          actorId: `user:${state.owner}`,
          correlationId: recorded.metadata.correlationId,
          actionId: state.actionId,
        };
        await createTask(tasks, TOOL_JOB, { ...input }, caller, {
          owner: input.actorId,
          taskId: state.actionId,
        });
        return;
      }
      const event = taskEvents.decode(recorded);
      const { taskId } = event.data;
      // Only the tasks of actions share their id with an action stream.
      const { state } = await actions.read(taskId);
      if (state.status !== 'Confirmed') return;
      let outcome: { ok: true; result: unknown } | { ok: false; error: string };
      let executionTimeMs = 0;
      if (event.type === 'TaskCompleted') {
        const result = (event.data.result ?? {}) as unknown as ToolTaskResult;
        executionTimeMs = result.execution_time_ms ?? 0;
        outcome = result.success
          ? { ok: true, result: result.result }
          : { ok: false, error: result.error?.message ?? 'the tool failed' };
      } else if (event.type === 'TaskFailed') {
        outcome = { ok: false, error: event.data.error };
      } else if (event.type === 'TaskCancelled') {
        outcome = { ok: false, error: 'the execution was cancelled' };
      } else {
        return;
      }
      await actions.execute(
        'RecordActionOutcome',
        { actionId: taskId, taskId, outcome, executionTimeMs },
        caller,
      );
    },
  };
}
