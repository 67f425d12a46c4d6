import type { Decider, EventDraft } from '../shared/index.js';
import { InvalidStateError, NotFoundError } from '../shared/index.js';
import type { ActionCommand } from './commands.js';
import type { ActionEvent, ActionRequest } from './events.js';

export type ActionStatus = 'Pending' | 'Confirmed' | 'Rejected' | 'Expired' | 'Executed' | 'Failed';

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

function owned(state: ActionState, actionId: string, owner: string): Existing {
  if (state.status === 'none' || state.owner !== owner) {
    throw new NotFoundError('action_not_found', `Action ${actionId} does not exist`);
  }
  return state;
}

const expired = (action: Existing, now: string): boolean =>
  action.status === 'Pending' && Date.parse(now) >= Date.parse(action.expiresAt);

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
      const action = owned(state, actionId, command.data.owner);
      // Expiry is an outcome, recorded by whoever finds it due; the caller learns it from the state.
      if (expired(action, command.metadata.now)) return [{ type: 'ActionExpired', data: { actionId } }];
      if (action.status === 'Pending') {
        return [{ type: 'ActionConfirmed', data: { actionId, taskId: command.data.taskId } }];
      }
      // Confirmed again (a retry, or a second tab): nothing more to do, the first one runs it.
      if (action.status === 'Confirmed' || action.status === 'Executed' || action.status === 'Failed') {
        return [];
      }
      throw new InvalidStateError(
        action.status === 'Expired' ? 'action_expired' : 'action_rejected',
        `Action ${actionId} is ${action.status.toLowerCase()} and cannot be confirmed`,
      );
    }
    case 'RejectAction': {
      const action = owned(state, actionId, command.data.owner);
      if (expired(action, command.metadata.now)) return [{ type: 'ActionExpired', data: { actionId } }];
      if (action.status === 'Pending') {
        return [{ type: 'ActionRejected', data: { actionId, reason: command.data.reason } }];
      }
      if (action.status === 'Rejected') return [];
      throw new InvalidStateError(
        action.status === 'Expired' ? 'action_expired' : 'action_confirmed',
        `Action ${actionId} is ${action.status.toLowerCase()} and cannot be rejected`,
      );
    }
    case 'RecordActionOutcome': {
      if (state.status === 'none') {
        throw new NotFoundError('action_not_found', `Action ${actionId} does not exist`);
      }
      // Only a confirmed action runs, as its own task, and its outcome is recorded once.
      const { taskId, outcome, executionTimeMs } = command.data;
      if (state.status !== 'Confirmed' || taskId !== state.taskId) return [];
      return outcome.ok
        ? [{ type: 'ActionExecuted', data: { actionId, taskId, result: outcome.result, executionTimeMs } }]
        : [{ type: 'ActionFailed', data: { actionId, taskId, error: outcome.error, executionTimeMs } }];
    }
  }
}

function evolve(state: ActionState, event: ActionEvent): ActionState {
  if (event.type === 'ActionPending') {
    return {
      status: 'Pending',
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
      return { ...state, status: 'Confirmed', taskId: event.data.taskId ?? event.data.actionId };
    case 'ActionRejected':
      return { ...state, status: 'Rejected', reason: event.data.reason };
    case 'ActionExpired':
      return { ...state, status: 'Expired' };
    case 'ActionExecuted':
      return { ...state, status: 'Executed', result: event.data.result };
    case 'ActionFailed':
      return { ...state, status: 'Failed', error: event.data.error };
  }
}

export const actionDecider: Decider<ActionCommand, ActionEvent, ActionState> = {
  decide,
  evolve,
  initialState: () => ({ status: 'none' }),
};
