import { actionEvents, type ApprovalPolicy } from '../domain/action/events.js';
import { approvalOf, type ActionStatus } from '../domain/action/decider.js';
import type { Projection } from './projection.js';

export const ACTIONS = 'actions';

/**
 * A tool call that waits for a decision, and where it stands; listed while pending and not expired to
 * its owner (who asked for it) and to whoever its approval policy names.
 */
export type ActionView = {
  id: string;
  owner: string;
  approval: ApprovalPolicy;
  /** Who confirmed or rejected it (null: undecided, or it expired). */
  decidedBy: string | null;
  tool: string;
  params: Record<string, unknown>;
  risk: string;
  status: ActionStatus;
  reason: string | null;
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
  /** Global position of `ActionPending`: orders actions strictly. */
  sequence: number;
};

export const actionsProjection: Projection = {
  name: ACTIONS,
  version: 3,
  handles: actionEvents.types,
  collections: [{ name: ACTIONS, indexes: ['owner', 'approval', 'status', 'expiresAt', 'sequence'] }],
  async apply(recorded, view) {
    const event = actionEvents.decode(recorded);
    const now = recorded.metadata.now;
    const { actionId } = event.data;
    switch (event.type) {
      case 'ActionPending': {
        const action: ActionView = {
          id: actionId,
          owner: event.data.owner,
          approval: approvalOf(event.data),
          decidedBy: null,
          tool: event.data.tool,
          params: event.data.params,
          risk: event.data.risk,
          status: 'pending',
          reason: null,
          createdAt: now,
          expiresAt: event.data.expiresAt,
          decidedAt: null,
          sequence: recorded.position,
        };
        view.put(ACTIONS, action);
        return;
      }
      case 'ActionConfirmed':
        return view.patch(ACTIONS, actionId, { status: 'confirmed', decidedAt: now, ...decider(event.data) });
      case 'ActionRejected':
        return view.patch(ACTIONS, actionId, {
          status: 'rejected',
          reason: event.data.reason,
          decidedAt: now,
          ...decider(event.data),
        });
      case 'ActionExpired':
        return view.patch(ACTIONS, actionId, { status: 'expired', decidedAt: now });
      case 'ActionExecuted':
        return view.patch(ACTIONS, actionId, { status: 'executed' });
      case 'ActionFailed':
        return view.patch(ACTIONS, actionId, { status: 'failed' });
    }
  },
};

/** Who decided: named by the event, or (recorded before approvals) the owner, left as the view has it. */
const decider = (data: { by?: string }): Partial<ActionView> => (data.by ? { decidedBy: data.by } : {});
