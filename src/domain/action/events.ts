import type { Event } from '../shared/index.js';
import { defineEvents } from '../shared/index.js';

export type RiskLevel = 'low' | 'medium' | 'high';

/**
 * Who decides a pending action: its requester (`self`), any administrator (`admin`), or any user
 * other than the requester (`other_user`, four eyes). The requester may always withdraw (reject) it.
 */
export const APPROVAL_POLICIES = ['self', 'admin', 'other_user'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/** What a pending action is: asked for by `RequestAction`, recorded by `ActionPending`, kept in its state. */
export type ActionRequest = {
  actionId: string;
  owner: string;
  tool: string;
  params: Record<string, unknown>;
  risk: RiskLevel;
  expiresAt: string;
  /**
   * The conversation whose chat turn asked for the call, and the model's id of that call: where the
   * outcome is told. Absent on actions asked for outside a chat (`execute_tool`), and on older ones.
   */
  conversationId?: string | null;
  toolCallId?: string | null;
  /** Who may confirm it; absent on actions recorded before approvals existed (`self`). */
  approval?: ApprovalPolicy;
};

/**
 * A high-risk tool call of `owner` (a user name) waits for their confirmation until `expiresAt`.
 * Nothing has run yet.
 */
export type ActionPending = Event<'ActionPending', ActionRequest>;
/**
 * Confirmed by `by` (a user name; absent on confirmations recorded before approvals existed, which
 * were the owner's): the action workflow runs it as the task `taskId`, once, with the owner's rights.
 * (Confirmations recorded before `taskId` existed ran their task under the action's own id.)
 */
export type ActionConfirmed = Event<'ActionConfirmed', { actionId: string; taskId?: string; by?: string }>;
/** Rejected by `by` (its requester withdrawing it, or an approver); absent on older ones: the owner. */
export type ActionRejected = Event<
  'ActionRejected',
  { actionId: string; reason: string | null; by?: string }
>;
/** Recorded lazily: by the first command that finds the action past `expiresAt` while still pending. */
export type ActionExpired = Event<'ActionExpired', { actionId: string }>;
/** The tool ran; `result` is its output (what `confirm_action` answers). */
export type ActionExecuted = Event<
  'ActionExecuted',
  { actionId: string; taskId: string | null; result: unknown; executionTimeMs: number }
>;
export type ActionFailed = Event<
  'ActionFailed',
  { actionId: string; taskId: string | null; error: string; executionTimeMs: number }
>;

export type ActionEvent =
  ActionPending | ActionConfirmed | ActionRejected | ActionExpired | ActionExecuted | ActionFailed;

export const actionEvents = defineEvents<ActionEvent>({
  ActionPending: {},
  ActionConfirmed: {},
  ActionRejected: {},
  ActionExpired: {},
  ActionExecuted: {},
  ActionFailed: {},
});

export const actionStream = (actionId: string): string => `action-${actionId}`;
