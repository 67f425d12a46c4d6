import type { Command } from '../shared/index.js';
import type { ActionRequest } from './events.js';

/** `owner` is who asks (a user name): another user's action is answered as unknown. */
export type RequestAction = Command<'RequestAction', ActionRequest>;
/** `taskId`: the id the action's task will have, if this confirmation is the one that counts. */
export type ConfirmAction = Command<'ConfirmAction', { actionId: string; owner: string; taskId: string }>;
export type RejectAction = Command<
  'RejectAction',
  { actionId: string; owner: string; reason: string | null }
>;
/** The product's own, from the worker that ran (or failed to run) the confirmed action. */
export type RecordActionOutcome = Command<
  'RecordActionOutcome',
  {
    actionId: string;
    taskId: string | null;
    outcome: { ok: true; result: unknown } | { ok: false; error: string };
    executionTimeMs: number;
  }
>;

export type ActionCommand = RequestAction | ConfirmAction | RejectAction | RecordActionOutcome;
