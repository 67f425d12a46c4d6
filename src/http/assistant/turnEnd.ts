import type { LiveTurn } from '../../chat/liveTurns.js';
import type { TurnDone } from '../../chat/turnEvents.js';
import { HttpError, serviceUnavailable } from '../httpError.js';

/** The HTTP status of a turn that failed: the model's fault is a gateway's, not ours. */
function statusOfTurnError(type: string): number {
  if (type === 'model_timeout' || type === 'turn_timeout') return 504;
  if (type.startsWith('model_')) return 502;
  if (type === 'conversation_deleted') return 409;
  return 500;
}

/**
 * How an ended turn ended: its `done`, or the HTTP error its `error` event says (already logged by
 * the turn, which recorded it as a message of its conversation).
 */
export function turnEnd(turn: LiveTurn): TurnDone {
  const end = turn.events.at(-1);
  if (end?.event === 'error') {
    const { error: type, detail } = end.data;
    const error =
      type === 'service_unavailable'
        ? serviceUnavailable(detail)
        : new HttpError(statusOfTurnError(type), type, detail);
    error.alreadyLogged = true;
    // Waiting for read models is pointless when a store is what failed.
    if (turn.position > 0 && type !== 'service_unavailable') error.position = turn.position;
    throw error;
  }
  if (end?.event !== 'done') throw new HttpError(500, 'internal_error', 'the answer failed');
  return end.data;
}

/** The text a turn said: its content deltas, joined. */
export const turnText = (turn: LiveTurn): string =>
  turn.events.map((event) => (event.event === 'content' ? event.data.content : '')).join('');
