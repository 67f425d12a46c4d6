import type { Command } from '../shared/index.js';
import type { ActionRequest } from './events.js';

/** `owner` is who asks (a user name); `approval` who may confirm (absent: the owner). */
export type RequestAction = Command<'RequestAction', ActionRequest>;

/**
 * Who decides: a user name and whether that user is an administrator. An action the decider may
 * neither decide nor owns is answered as unknown.
 */
export type DecidingUser = { name: string; admin: boolean };

/** `taskId`: the id the action's task will have, if this confirmation is the one that counts. */
export type ConfirmAction = Command<'ConfirmAction', { actionId: string; by: DecidingUser; taskId: string }>;
export type RejectAction = Command<
  'RejectAction',
  { actionId: string; by: DecidingUser; reason: string | null }
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
