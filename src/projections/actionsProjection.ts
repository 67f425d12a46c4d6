import { actionEvents } from '../domain/action/events.js';
import type { ActionStatus } from '../domain/action/decider.js';
import type { Projection } from './projection.js';

export const ACTIONS = 'actions';

/** A high-risk tool call and where it stands; listed to its owner while pending and not expired. */
export type ActionView = {
  id: string;
  owner: string;
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
  version: 2,
  handles: actionEvents.types,
  collections: [{ name: ACTIONS, indexes: ['owner', 'status', 'expiresAt', 'sequence'] }],
  async apply(recorded, view) {
    const event = actionEvents.decode(recorded);
    const now = recorded.metadata.now;
    const { actionId } = event.data;
    switch (event.type) {
      case 'ActionPending': {
        const action: ActionView = {
          id: actionId,
          owner: event.data.owner,
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
        return view.patch(ACTIONS, actionId, { status: 'confirmed', decidedAt: now });
      case 'ActionRejected':
        return view.patch(ACTIONS, actionId, {
          status: 'rejected',
          reason: event.data.reason,
          decidedAt: now,
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
