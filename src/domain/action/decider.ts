import type { Decider, EventDraft } from '../shared/index.js';
import { ForbiddenError, InvalidStateError, NotFoundError } from '../shared/index.js';
import type { ActionCommand, DecidingUser } from './commands.js';
import type { ActionEvent, ActionRequest, ApprovalPolicy } from './events.js';

/** Every status an action can have, spelled as every status of the API is (lower case, as tasks' are). */
export const ACTION_STATUSES = ['pending', 'confirmed', 'rejected', 'expired', 'executed', 'failed'] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

export type ActionState =
  | { status: 'none' }
  | (ActionRequest & {
      status: ActionStatus;
      /** The task that runs the action, once confirmed. */
      taskId: string | null;
      reason: string | null;
      result: unknown;
      error: string | null;
    });

type Draft = EventDraft<ActionEvent>;
type Existing = Exclude<ActionState, { status: 'none' }>;

/** Who decides `action`: its approval policy (absent on actions recorded before policies: `self`). */
export const approvalOf = (action: Pick<ActionRequest, 'approval'>): ApprovalPolicy =>
  action.approval ?? 'self';

/** Whether `user` may confirm `action`: who its approval policy names. */
export function mayConfirm(action: Pick<ActionRequest, 'owner' | 'approval'>, user: DecidingUser): boolean {
  switch (approvalOf(action)) {
    case 'self':
      return user.name === action.owner;
    case 'admin':
      return user.admin;
    case 'other_user':
      return user.name !== action.owner;
  }
}

/**
 * The action as `user` may decide it: its requester may always reject (withdraw) it, its approvers
 * confirm or reject it. Anyone else is told it does not exist; the requester asking to confirm what
 * someone else must approve is refused, saying who.
 */
function decidable(
  state: ActionState,
  actionId: string,
  user: DecidingUser,
  asked: 'confirm' | 'reject',
): Existing {
  if (state.status === 'none')
    throw new NotFoundError('action_not_found', `Action ${actionId} does not exist`);
  if (mayConfirm(state, user)) return state;
  if (state.owner !== user.name)
    throw new NotFoundError('action_not_found', `Action ${actionId} does not exist`);
  if (asked === 'reject') return state;
  const who = approvalOf(state) === 'admin' ? 'an administrator' : 'a user other than its requester';
  throw new ForbiddenError('approval_required', `Action ${actionId} must be confirmed by ${who}`, {
    actionId,
    approval: approvalOf(state),
  });
}

const expired = (action: Existing, now: string): boolean =>
  action.status === 'pending' && Date.parse(now) >= Date.parse(action.expiresAt);

/** What confirming or rejecting an action decided already meets: its decision, and the outcome so far. */
function decided(action: Existing, asked: 'confirmed' | 'rejected'): InvalidStateError {
  const decision = action.status === 'executed' || action.status === 'failed' ? 'confirmed' : action.status;
  return new InvalidStateError(
    `action_${decision}`,
    `Action ${action.actionId} is ${action.status} already and cannot be ${asked}${decision === asked ? ' again' : ''}`,
    {
      actionId: action.actionId,
      status: action.status,
      taskId: action.taskId,
      reason: action.reason,
      result: action.result,
      error: action.error,
    },
  );
}

function decide(command: ActionCommand, state: ActionState): Draft[] {
  const { actionId } = command.data;
  switch (command.type) {
    case 'RequestAction': {
      if (state.status !== 'none') {
        if (state.owner === command.data.owner && state.tool === command.data.tool) return [];
        throw new InvalidStateError('action_exists', `Action ${actionId} exists already`);
      }
      return [{ type: 'ActionPending', data: { ...command.data } }];
    }
    case 'ConfirmAction': {
      const { by } = command.data;
      const action = decidable(state, actionId, by, 'confirm');
      // Expiry is an outcome, recorded by whoever finds it due; the caller learns it from the state.
      if (expired(action, command.metadata.now)) return [{ type: 'ActionExpired', data: { actionId } }];
      if (action.status === 'pending') {
        return [{ type: 'ActionConfirmed', data: { actionId, taskId: command.data.taskId, by: by.name } }];
      }
      // Decided already (a retry, a second tab, or a simultaneous confirmation that lost the race):
      // refused, with the decision and its outcome, so that nobody takes it for a second run.
      throw decided(action, 'confirmed');
    }
    case 'RejectAction': {
      const { by } = command.data;
      const action = decidable(state, actionId, by, 'reject');
      if (expired(action, command.metadata.now)) return [{ type: 'ActionExpired', data: { actionId } }];
      if (action.status === 'pending') {
        return [{ type: 'ActionRejected', data: { actionId, reason: command.data.reason, by: by.name } }];
      }
      throw decided(action, 'rejected');
    }
    case 'RecordActionOutcome': {
      if (state.status === 'none') {
        throw new NotFoundError('action_not_found', `Action ${actionId} does not exist`);
      }
      // Only a confirmed action runs, as its own task, and its outcome is recorded once.
      const { taskId, outcome, executionTimeMs } = command.data;
      if (state.status !== 'confirmed' || taskId !== state.taskId) return [];
      return outcome.ok
        ? [{ type: 'ActionExecuted', data: { actionId, taskId, result: outcome.result, executionTimeMs } }]
        : [{ type: 'ActionFailed', data: { actionId, taskId, error: outcome.error, executionTimeMs } }];
    }
  }
}

function evolve(state: ActionState, event: ActionEvent): ActionState {
  if (event.type === 'ActionPending') {
    return {
      status: 'pending',
      conversationId: null,
      toolCallId: null,
      ...event.data,
      taskId: null,
      reason: null,
      result: null,
      error: null,
    };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'ActionConfirmed':
      return { ...state, status: 'confirmed', taskId: event.data.taskId ?? event.data.actionId };
    case 'ActionRejected':
      return { ...state, status: 'rejected', reason: event.data.reason };
    case 'ActionExpired':
      return { ...state, status: 'expired' };
    case 'ActionExecuted':
      return { ...state, status: 'executed', result: event.data.result };
    case 'ActionFailed':
      return { ...state, status: 'failed', error: event.data.error };
  }
}

export const actionDecider: Decider<ActionCommand, ActionEvent, ActionState> = {
  decide,
  evolve,
  initialState: () => ({ status: 'none' }),
};
