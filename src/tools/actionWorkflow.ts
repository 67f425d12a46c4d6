import type { ActionCommands, ConversationCommands, TaskCommands } from '../commands/aggregates.js';
import { createTask } from '../commands/newTask.js';
import type { ActionState } from '../domain/action/decider.js';
import { actionEvents } from '../domain/action/events.js';
import { DomainError } from '../domain/shared/index.js';
import { taskEvents } from '../domain/task/events.js';
import { derivedId } from '../knowledge/derivedId.js';
import type { Reactor } from '../workers/reactors.js';
import { TOOL_JOB, type ToolTaskInput, type ToolTaskResult } from './toolJob.js';

const SYSTEM = 'system:actions';
/** What the result of an action may take of its conversation message. */
const MAX_RESULT_CHARS = 2_000;

type Existing = Exclude<ActionState, { status: 'none' }>;

/**
 * A tool call that needs confirmation, as a workflow (in emmett's sense: a reactor whose every step
 * is decided by an aggregate, so each runs once however often the log is replayed):
 *
 *   requested → pending → confirmed ─→ task (its id named by the confirmation) → outcome
 *                       ↘ rejected or expired                                      ↓
 *                         ────────────────────────────→ a message in the action's conversation
 *
 * The correlation is explicit: the action names its conversation and the model's tool call id, the
 * confirmation names the task, the task's input names the action.
 */
export function actionWorkflow(deps: {
  actions: ActionCommands;
  tasks: TaskCommands;
  conversations: ConversationCommands;
}): Reactor {
  const { actions, tasks, conversations } = deps;
  return {
    // The name keeps the checkpoint of the reactor this workflow grew from.
    name: 'tool_actions',
    handles: [
      'ActionConfirmed',
      'TaskCompleted',
      'TaskFailed',
      'TaskCancelled',
      'ActionExecuted',
      'ActionFailed',
      'ActionRejected',
      'ActionExpired',
    ],
    async react(recorded) {
      const caller = { actorId: SYSTEM, correlationId: recorded.metadata.correlationId };
      if (recorded.type.startsWith('Task')) {
        const event = taskEvents.decode(recorded);
        const { state: task } = await tasks.read(event.data.taskId);
        if (task.status === 'none' || task.jobType !== TOOL_JOB) return;
        const actionId = (task.input as Partial<ToolTaskInput>).actionId;
        if (typeof actionId !== 'string') return;
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
          { actionId, taskId: task.taskId, outcome, executionTimeMs },
          caller,
        );
        return;
      }
      const event = actionEvents.decode(recorded);
      const { state } = await actions.read(event.data.actionId);
      if (state.status === 'none') return;
      if (event.type === 'ActionConfirmed') {
        if (state.status !== 'confirmed' || state.taskId === null) return;
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
          taskId: state.taskId,
        });
        return;
      }
      if (!state.conversationId) return;
      try {
        await conversations.execute(
          'AppendMessage',
          {
            conversationId: state.conversationId,
            owner: state.owner,
            // The same message however often this step runs again.
            messageId: derivedId('action-outcome', state.actionId),
            role: 'assistant',
            content: outcomeText(state),
            action: {
              actionId: state.actionId,
              status: state.status,
              ...(state.toolCallId ? { toolCallId: state.toolCallId } : {}),
            },
          },
          caller,
        );
      } catch (error) {
        // The conversation was deleted or purged meanwhile: there is nobody to tell.
        if (!(error instanceof DomainError)) throw error;
      }
    },
  };
}

/** The outcome of an action, said to its conversation (and so to the model in the next turn). */
function outcomeText(action: Existing): string {
  const name = `${action.tool} (action ${action.actionId})`;
  switch (action.status) {
    case 'executed':
      return `The confirmed call of ${name} ran. Result: ${truncated(JSON.stringify(action.result ?? null))}`;
    case 'failed':
      return `The confirmed call of ${name} failed: ${truncated(action.error ?? 'unknown error')}`;
    case 'rejected':
      return `The call of ${name} was rejected${action.reason ? `: ${truncated(action.reason)}` : ''}. It did not run.`;
    case 'expired':
      return `The call of ${name} expired unconfirmed at ${action.expiresAt}. It did not run.`;
    default:
      return `The call of ${name} is ${action.status.toLowerCase()}.`;
  }
}

const truncated = (text: string): string =>
  text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}…` : text;
