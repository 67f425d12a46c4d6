import type { ActionCommands, ActionOutcome, TaskCommands } from '../commands/aggregates.js';
import type { Caller, Clock } from '../commands/context.js';
import type { ActionState } from '../domain/action/decider.js';
import { actionEvents, actionStream, type ApprovalPolicy } from '../domain/action/events.js';
import type { DecidingUser } from '../domain/action/commands.js';
import { taskEvents, taskStream } from '../domain/task/events.js';
import { awaitStreamEvent } from '../eventStore/awaitStreamEvent.js';
import { InvalidStateError, NotFoundError } from '../domain/shared/index.js';
import type { EventStore, RecordedEvent } from '../eventStore/eventStore.js';
import { ACTIONS, type ActionView } from '../projections/actionsProjection.js';
import type { ReadModels } from '../projections/readModels.js';
import type { ToolPolicy } from '../settings/definitions.js';
import type { Tool, ToolRegistry } from './registry.js';
import { TOOL_JOB, type ToolTaskInput, type ToolTaskResult } from './toolJob.js';
import { createTask } from '../commands/newTask.js';

/** How a call ended, or that it is still running when the wait ran out. */
export type CallOutcome =
  | {
      state: 'done';
      success: boolean;
      result: unknown;
      error: { type: string; message: string } | null;
      executionTimeMs: number;
    }
  | { state: 'running' };

export interface ToolsOptions {
  registry: ToolRegistry;
  tasks: TaskCommands;
  actions: ActionCommands;
  eventStore: Pick<EventStore, 'subscribeToStream'>;
  readModels: ReadModels;
  clock: Clock;
  newId: () => string;
  /** How long a pending action waits for its owner's confirmation. */
  actionExpiryMs: number;
  /** How long `execute`/`confirm` wait for the worker before answering that the call still runs. */
  waitMs?: number;
  /** What the assistant's settings allow a tool; by default its risk decides (high: confirm). */
  policyOf?: (tool: Tool) => Promise<ToolPolicy>;
  /** Who confirms a call of the tool that waits for confirmation; by default its requester. */
  approvalOf?: (tool: Tool) => Promise<ApprovalPolicy>;
}

const riskPolicy = async (tool: Tool): Promise<ToolPolicy> => (tool.risk === 'high' ? 'confirm' : 'auto');

function withTimeout(signal: AbortSignal, ms: number): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(ms)]);
}

/**
 * Tool calls of the Assistant API's users. A call runs as a `tool` task in a worker (so the API
 * process never runs a tool itself); low and medium risk calls run at once and the request waits for
 * the task, as the synchronous upload does; high-risk calls become pending actions that run only
 * when their owner confirms them, once.
 */
export function createTools(options: ToolsOptions) {
  const { registry, tasks, actions, eventStore, readModels, clock } = options;
  const waitMs = options.waitMs ?? 60_000;

  /**
   * The one way a caller waits for a call's outcome: follows the stream that records it (the task's
   * for a call that runs at once, the action's for a confirmed one: its outcome is recorded there
   * after the task's) until `outcomeOf` finds it, or answers that it still runs after `waitMs`.
   */
  async function waitFor(
    stream: string,
    outcomeOf: (event: RecordedEvent) => CallOutcome | undefined,
    signal: AbortSignal,
  ): Promise<CallOutcome> {
    const bounded = withTimeout(signal, waitMs);
    try {
      return await awaitStreamEvent(eventStore, stream, outcomeOf, bounded);
    } catch (error) {
      signal.throwIfAborted();
      if (bounded.aborted) return { state: 'running' };
      throw error;
    }
  }

  const policyOf = options.policyOf ?? riskPolicy;
  const approvalOf = options.approvalOf ?? (async (): Promise<ApprovalPolicy> => 'self');

  return {
    registry,
    actionExpiryMs: options.actionExpiryMs,
    /** Whether a call of `tool` runs at once (auto), waits for confirmation (confirm), or is refused (disabled). */
    policyOf,
    /** The tools the settings leave on (of `category`, when given), each with its policy. */
    async available(category: string | null = null): Promise<Array<{ tool: Tool; policy: ToolPolicy }>> {
      const listed = await Promise.all(
        registry.list(category).map(async (tool) => ({ tool, policy: await policyOf(tool) })),
      );
      return listed.filter((entry) => entry.policy !== 'disabled');
    },

    /** Runs a low or medium risk call in a worker and waits for it. `params` must be validated. */
    async execute(
      owner: string,
      tool: string,
      params: Record<string, unknown>,
      caller: Caller,
      signal: AbortSignal,
    ) {
      const input: ToolTaskInput = {
        tool,
        params,
        owner,
        actorId: caller.actorId,
        correlationId: caller.correlationId,
      };
      const created = await createTask(tasks, TOOL_JOB, { ...input }, caller, { owner: caller.actorId });
      return {
        taskId: created.taskId,
        outcome: await waitFor(taskStream(created.taskId), taskOutcome, signal),
      };
    },

    /**
     * Records a call that needs confirmation (high risk, or so set) as a pending action of `owner`,
     * to be confirmed by whoever the tool's approval policy names; nothing runs.
     */
    async request(
      owner: string,
      tool: string,
      params: Record<string, unknown>,
      caller: Caller,
      /** The chat turn's conversation and tool call, when a chat turn asks: told the outcome. */
      asker: { conversationId: string | null; toolCallId: string } | null = null,
    ): Promise<ActionOutcome & { actionId: string }> {
      const definition = registry.get(tool);
      if (!definition) throw new NotFoundError('tool_not_found', `No tool named ${tool}`);
      await definition.precheck?.(params, { owner, caller });
      const actionId = options.newId();
      const expiresAt = new Date(clock().getTime() + options.actionExpiryMs).toISOString();
      const approval = await approvalOf(definition);
      const outcome = await actions.execute(
        'RequestAction',
        { actionId, owner, tool, params, risk: definition.risk, expiresAt, approval, ...(asker ?? {}) },
        caller,
      );
      return { ...outcome, actionId };
    },

    /**
     * Confirms a pending action `by` may approve and waits for its execution (which has its
     * requester's rights, not the approver's). Confirming again (or twice at once) runs nothing more
     * and is refused with the decision and its outcome; an expired action is recorded as such and
     * refused.
     */
    async confirm(by: DecidingUser, actionId: string, caller: Caller, signal: AbortSignal) {
      const outcome = await actions.execute(
        'ConfirmAction',
        { actionId, by, taskId: options.newId() },
        caller,
      );
      const state = outcome.state as Exclude<ActionState, { status: 'none' }>;
      if (state.status === 'expired') {
        throw new InvalidStateError('action_expired', `Action ${actionId} expired at ${state.expiresAt}`, {
          actionId,
          status: state.status,
          expiresAt: state.expiresAt,
        });
      }
      return {
        state,
        position: outcome.position,
        outcome: await waitFor(actionStream(actionId), actionOutcome, signal),
      };
    },

    /** Rejects a pending action: its approver's refusal, or its requester withdrawing it. */
    async reject(by: DecidingUser, actionId: string, reason: string | null, caller: Caller) {
      const outcome = await actions.execute('RejectAction', { actionId, by, reason }, caller);
      const state = outcome.state as Exclude<ActionState, { status: 'none' }>;
      if (state.status === 'expired') {
        throw new InvalidStateError('action_expired', `Action ${actionId} expired at ${state.expiresAt}`, {
          actionId,
          status: state.status,
          expiresAt: state.expiresAt,
        });
      }
      return { state, position: outcome.position, at: outcome.appended[0]?.metadata.now ?? null };
    },

    /**
     * A page of the actions waiting for a decision that `user` may see, oldest first: their own, and
     * those they may approve (any user: others' `other_user` actions; an administrator: `admin`
     * ones too). Expired ones are left out.
     */
    async pending(
      user: DecidingUser,
      page: { page: number; pageSize: number } = { page: 1, pageSize: 500 },
    ): Promise<{ actions: ActionView[]; total: number }> {
      const waiting = { status: 'pending', expiresAt: { $gt: clock().toISOString() } };
      const approvable: ApprovalPolicy[] = user.admin ? ['other_user', 'admin'] : ['other_user'];
      // Two disjoint sets (no `$or` in the read store): what the user may approve, and the rest of their own.
      const filters = [
        { ...waiting, approval: { $in: approvable } },
        { ...waiting, owner: user.name, approval: { $nin: approvable } },
      ];
      const upTo = page.page * page.pageSize;
      const [firsts, counts] = await Promise.all([
        Promise.all(
          filters.map((filter) =>
            readModels.find<ActionView>(ACTIONS, { filter, sort: [['sequence', 1]], limit: upTo }),
          ),
        ),
        Promise.all(filters.map((filter) => readModels.count(ACTIONS, filter))),
      ]);
      const merged = firsts.flat().sort((a, b) => a.sequence - b.sequence);
      return {
        actions: merged.slice(upTo - page.pageSize, upTo),
        total: counts.reduce((sum, count) => sum + count, 0),
      };
    },
  };
}

export type Tools = ReturnType<typeof createTools>;

/** How a call that ran at once ended, read from its task's end. */
function taskOutcome(recorded: RecordedEvent): CallOutcome | undefined {
  if (!taskEvents.has(recorded.type)) return undefined;
  const event = taskEvents.decode(recorded);
  switch (event.type) {
    case 'TaskCompleted': {
      const result = (event.data.result ?? {}) as unknown as ToolTaskResult;
      return {
        state: 'done',
        success: result.success,
        result: result.result ?? null,
        error: result.error ?? null,
        executionTimeMs: result.execution_time_ms,
      };
    }
    case 'TaskFailed':
      return failed('tool_failed', event.data.error, 0);
    case 'TaskCancelled':
      return failed('tool_cancelled', event.data.reason ?? 'the tool was cancelled', 0);
    default:
      return undefined;
  }
}

/** How a confirmed call ended, read from the outcome its action records after its task's end. */
function actionOutcome(recorded: RecordedEvent): CallOutcome | undefined {
  if (!actionEvents.has(recorded.type)) return undefined;
  const event = actionEvents.decode(recorded);
  switch (event.type) {
    case 'ActionExecuted':
      return {
        state: 'done',
        success: true,
        result: event.data.result ?? null,
        error: null,
        executionTimeMs: event.data.executionTimeMs ?? 0,
      };
    case 'ActionFailed':
      return failed('tool_failed', event.data.error, event.data.executionTimeMs ?? 0);
    default:
      return undefined;
  }
}

const failed = (type: string, message: string, executionTimeMs: number): CallOutcome => ({
  state: 'done',
  success: false,
  result: null,
  error: { type, message },
  executionTimeMs,
});
