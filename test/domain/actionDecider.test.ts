import type { ActionCommand } from '../../src/domain/action/commands.js';
import { expect } from 'chai';
import { actionDecider } from '../../src/domain/action/decider.js';
import type { ActionEvent } from '../../src/domain/action/events.js';
import { spec } from '../../src/domain/shared/deciderSpec.js';
import { InvalidStateError, type Metadata } from '../../src/domain/shared/index.js';

const at = (now: string): Metadata => ({ now, actorId: 'user:alice', correlationId: 'c1' });
const before = at('2026-11-24T10:00:00.000Z');
const after = at('2026-11-24T11:00:00.000Z');
const actionId = 'a-1';
const alice = { name: 'alice', admin: false };
const bob = { name: 'bob', admin: false };
const root = { name: 'root', admin: true };
const taskId = 't-1';
const command = <T extends ActionCommand['type']>(
  type: T,
  data: Extract<ActionCommand, { type: T }>['data'],
  meta: Metadata = before,
): ActionCommand => ({ type, data, metadata: meta }) as ActionCommand;

const request = {
  actionId,
  owner: 'alice',
  tool: 'delete_document',
  params: { doc_id: 'd1' },
  risk: 'high' as const,
  expiresAt: '2026-11-24T10:30:00.000Z',
};
const pending = { type: 'ActionPending', data: request } as const;
const confirmed = { type: 'ActionConfirmed', data: { actionId, taskId, by: 'alice' } } as const;
const rejected = { type: 'ActionRejected', data: { actionId, reason: 'not now', by: 'alice' } } as const;
const expired = { type: 'ActionExpired', data: { actionId } } as const;
const executed = {
  type: 'ActionExecuted',
  data: { actionId, taskId, result: { deleted: true }, executionTimeMs: 3 },
} as const;
const ok = { ok: true as const, result: { deleted: true } };

describe('action decider', () => {
  const action = spec(actionDecider);

  it('records a requested action as pending; the same request again is nothing to do', () => {
    action.given([]).when(command('RequestAction', request)).then([pending]);
    action.given([pending]).when(command('RequestAction', request)).then([]);
  });

  it('confirms a pending action of its owner, once: a second confirmation is refused with the outcome', () => {
    action
      .given([pending])
      .when(command('ConfirmAction', { actionId, by: alice, taskId }))
      .then([confirmed]);
    action
      .given([pending, confirmed])
      .when(command('ConfirmAction', { actionId, by: alice, taskId }))
      .thenThrows('action_confirmed');
    action
      .given([pending, confirmed, executed])
      .when(command('ConfirmAction', { actionId, by: alice, taskId }))
      .thenThrows('action_confirmed');
    const state = [pending, confirmed, executed].reduce(
      (folded, event) => actionDecider.evolve(folded, event as ActionEvent),
      actionDecider.initialState(),
    );
    let refusal: unknown;
    try {
      actionDecider.decide(command('ConfirmAction', { actionId, by: alice, taskId }), state);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).to.be.instanceOf(InvalidStateError);
    expect((refusal as InvalidStateError).details).to.deep.include({
      actionId,
      status: 'executed',
      taskId,
      result: executed.data.result,
    });
  });

  it("answers another user's action, or none, as unknown", () => {
    action
      .given([pending])
      .when(command('ConfirmAction', { actionId, by: bob, taskId }))
      .thenThrows('action_not_found');
    action
      .given([pending])
      .when(command('RejectAction', { actionId, by: bob, reason: null }))
      .thenThrows('action_not_found');
    action
      .given([])
      .when(command('ConfirmAction', { actionId, by: alice, taskId }))
      .thenThrows('action_not_found');
  });

  it('rejects a pending action with its reason; a rejected one cannot be confirmed', () => {
    action
      .given([pending])
      .when(command('RejectAction', { actionId, by: alice, reason: 'not now' }))
      .then([rejected]);
    action
      .given([pending, rejected])
      .when(command('RejectAction', { actionId, by: alice, reason: 'again' }))
      .thenThrows('action_rejected');
    action
      .given([pending, rejected])
      .when(command('ConfirmAction', { actionId, by: alice, taskId }))
      .thenThrows('action_rejected');
    action
      .given([pending, confirmed])
      .when(command('RejectAction', { actionId, by: alice, reason: null }))
      .thenThrows('action_confirmed');
  });

  it('expires a pending action found past its time; an expired one cannot be confirmed', () => {
    action
      .given([pending])
      .when(command('ConfirmAction', { actionId, by: alice, taskId }, after))
      .then([expired]);
    action
      .given([pending])
      .when(command('RejectAction', { actionId, by: alice, reason: null }, after))
      .then([expired]);
    action
      .given([pending, expired])
      .when(command('ConfirmAction', { actionId, by: alice, taskId }, after))
      .thenThrows('action_expired');
  });

  describe('approval by someone else', () => {
    const byAdmin = { type: 'ActionPending', data: { ...request, approval: 'admin' } } as const;
    const byOther = { type: 'ActionPending', data: { ...request, approval: 'other_user' } } as const;

    it('an admin action is confirmed by an administrator, not by its requester, and is unknown to others', () => {
      action
        .given([byAdmin])
        .when(command('ConfirmAction', { actionId, by: root, taskId }))
        .then([{ type: 'ActionConfirmed', data: { actionId, taskId, by: 'root' } }]);
      action
        .given([byAdmin])
        .when(command('ConfirmAction', { actionId, by: alice, taskId }))
        .thenThrows('approval_required');
      action
        .given([byAdmin])
        .when(command('ConfirmAction', { actionId, by: bob, taskId }))
        .thenThrows('action_not_found');
      action
        .given([byAdmin])
        .when(command('RejectAction', { actionId, by: bob, reason: null }))
        .thenThrows('action_not_found');
    });

    it('an other_user action is confirmed by any user but its requester', () => {
      action
        .given([byOther])
        .when(command('ConfirmAction', { actionId, by: bob, taskId }))
        .then([{ type: 'ActionConfirmed', data: { actionId, taskId, by: 'bob' } }]);
      action
        .given([byOther])
        .when(command('ConfirmAction', { actionId, by: { name: 'alice', admin: true }, taskId }))
        .thenThrows('approval_required');
    });

    it('its requester may withdraw it, and an approver reject it, naming who did', () => {
      action
        .given([byAdmin])
        .when(command('RejectAction', { actionId, by: alice, reason: 'mistake' }))
        .then([{ type: 'ActionRejected', data: { actionId, reason: 'mistake', by: 'alice' } }]);
      action
        .given([byOther])
        .when(command('RejectAction', { actionId, by: bob, reason: 'no' }))
        .then([{ type: 'ActionRejected', data: { actionId, reason: 'no', by: 'bob' } }]);
    });

    it('an action recorded before approvals existed is its requester’s to confirm', () => {
      action
        .given([pending])
        .when(command('ConfirmAction', { actionId, by: root, taskId }))
        .thenThrows('action_not_found');
    });
  });

  it('records the outcome of a confirmed action once, and of no other', () => {
    const outcome = { actionId, taskId, outcome: ok, executionTimeMs: 3 };
    action.given([pending, confirmed]).when(command('RecordActionOutcome', outcome)).then([executed]);
    action.given([pending, confirmed, executed]).when(command('RecordActionOutcome', outcome)).then([]);
    action.given([pending]).when(command('RecordActionOutcome', outcome)).then([]);
    action
      .given([pending, confirmed])
      .when(
        command('RecordActionOutcome', {
          actionId,
          taskId,
          outcome: { ok: false, error: 'boom' },
          executionTimeMs: 1,
        }),
      )
      .then([{ type: 'ActionFailed', data: { actionId, taskId, error: 'boom', executionTimeMs: 1 } }]);
  });

  it('records only the outcome of the task its confirmation named', () => {
    const other = { actionId, taskId: 't-2', outcome: ok, executionTimeMs: 3 };
    action.given([pending, confirmed]).when(command('RecordActionOutcome', other)).then([]);
  });

  it('takes the task of a confirmation recorded before tasks were named to be the action’s own id', () => {
    const older = { type: 'ActionConfirmed', data: { actionId } } as const;
    const outcome = { actionId, taskId: actionId, outcome: ok, executionTimeMs: 3 };
    action
      .given([pending, older])
      .when(command('RecordActionOutcome', outcome))
      .then([{ ...executed, data: { ...executed.data, taskId: actionId } }]);
  });
});
