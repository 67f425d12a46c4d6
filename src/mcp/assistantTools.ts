import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Caller } from '../commands/context.js';
import { mayConfirm } from '../domain/action/decider.js';
import type { DecidingUser } from '../domain/action/commands.js';
import type { ApprovalPolicy } from '../domain/action/events.js';
import { VECTORS_PROJECTION } from '../knowledge/vectorProjector.js';
import { ACTIONS } from '../projections/actionsProjection.js';
import { KNOWLEDGE } from '../projections/knowledgeProjection.js';
import type { ToolPolicy } from '../settings/definitions.js';
import type { Tool } from '../tools/registry.js';
import type { CallOutcome } from '../tools/tools.js';
import { callerOf, caughtUp, type McpDeps, type McpSession } from './mcpContext.js';
import { answered, guarded, refused } from './toolResults.js';

/**
 * The assistant's tools carry this prefix over MCP: three of them share a name with the server's own
 * tools (list_documents, get_document, list_tasks) and answer differently, and a prefix on all keeps
 * any tool the assistant gains later from clashing.
 */
export const ASSISTANT_TOOL_PREFIX = 'assistant_';
/** Where a client finds a tool's risk level and policy besides its description and hints. */
export const RISK_META = 'archivist/risk_level';
export const CONFIRMATION_META = 'archivist/requires_confirmation';
/** Longest the server waits for the user's answer to a confirmation question. */
const MAX_QUESTION_MS = 10 * 60_000;
/** What a confirmed action changed is read right after: the action, and documents it deleted. */
const READ_AFTER_DECISION = [ACTIONS, KNOWLEDGE, VECTORS_PROJECTION];

const APPROVERS: Record<ApprovalPolicy, string> = {
  self: 'you',
  admin: 'an administrator',
  other_user: 'a user other than you',
};

type Params = Record<string, unknown>;

/** Converted once per tool: over HTTP every request builds its own server. */
const inputSchemas = new WeakMap<Tool, z.ZodType>();

/** The tool's own JSON schema as zod (which the SDK takes); the registry validates again, as the API does. */
function inputSchemaOf(tool: Tool): z.ZodType {
  let schema = inputSchemas.get(tool);
  if (!schema) {
    try {
      schema = z.fromJSONSchema(tool.params as Parameters<typeof z.fromJSONSchema>[0]);
    } catch {
      // A schema zod cannot convert is still checked in full by the registry before anything runs.
      schema = z.looseObject({});
    }
    inputSchemas.set(tool, schema);
  }
  return schema;
}

function descriptionOf(tool: Tool, policy: ToolPolicy): string {
  const confirmation =
    policy === 'confirm'
      ? ' A call runs nothing by itself: it becomes a pending action that a person must confirm.'
      : '';
  return `${tool.description}. Risk level: ${tool.risk}.${confirmation} (The assistant's ${tool.name} tool.)`;
}

/** A call's arguments as a person reads them in a question or an answer (long ones cut). */
function said(params: Params): string {
  const json = JSON.stringify(params);
  return json.length > 500 ? `${json.slice(0, 500)}…` : json;
}

/** How a call that ran (at once, or once confirmed) ended, as a tool result. */
function outcomeAnswer(
  tool: Tool,
  outcome: CallOutcome,
  ids: { task_id: string | null; action_id: string | null },
): CallToolResult {
  if (outcome.state === 'running') {
    return answered(
      { status: 'running', ...ids, result: null },
      `${tool.name} is still running as task ${ids.task_id}; follow it with list_tasks.`,
    );
  }
  const structured = {
    status: outcome.success ? 'executed' : 'failed',
    ...ids,
    result: outcome.result,
    execution_time_ms: outcome.executionTimeMs,
    ...(outcome.error ? { error: outcome.error } : {}),
  };
  if (!outcome.success) {
    return refused(
      `${tool.name} failed: ${outcome.error?.type ?? 'tool_failed'}: ${outcome.error?.message ?? ''}`,
      structured,
    );
  }
  return answered(structured, JSON.stringify(outcome.result, null, 2));
}

/**
 * The assistant's own tools (the registry of `execute_tool`), each with its risk level, run as the
 * Assistant API runs them: a call the settings let through runs at once in a worker; one that needs
 * confirmation becomes a pending action (`ActionPending`) and runs only once a person approves it.
 * There is no tool to confirm an action: the agent must not approve its own calls. When the
 * transport can reach the user and the client takes elicitation, the user is asked there, yes or
 * no; otherwise the action waits for the Assistant API (list_pending_actions, confirm_action).
 */
export async function registerAssistantTools(
  server: McpServer,
  deps: McpDeps,
  session: McpSession,
): Promise<void> {
  const { tools } = deps;
  const user: DecidingUser = { name: session.principal.name, admin: session.principal.admin };

  /** Asks the user to confirm; null when they cannot be asked (the reason is then told). */
  async function ask(tool: Tool, params: Params, signal: AbortSignal): Promise<boolean | null> {
    if (session.noElicitation !== null || !server.server.getClientCapabilities()?.elicitation?.form) {
      return null;
    }
    const answer = await server.server.elicitInput(
      {
        mode: 'form',
        message: `Confirm ${tool.name} ${said(params)}? (risk level ${tool.risk}; it runs with your rights)`,
        requestedSchema: {
          type: 'object',
          properties: {
            confirm: {
              type: 'boolean',
              title: `Run ${tool.name}`,
              description: 'Yes runs it now, once; no withdraws it',
              default: false,
            },
          },
          required: ['confirm'],
        },
      },
      { signal, timeout: Math.min(tools.actionExpiryMs, MAX_QUESTION_MS) },
    );
    return answer.action === 'accept' && answer.content?.['confirm'] === true;
  }

  async function decide(
    tool: Tool,
    params: Params,
    actionId: string,
    caller: Caller,
    signal: AbortSignal,
  ): Promise<CallToolResult | null> {
    let confirmed: boolean | null;
    try {
      confirmed = await ask(tool, params, signal);
    } catch (error) {
      signal.throwIfAborted();
      // No answer (the client failed or took too long): the action stays pending for the console.
      session.log.warn({ err: error, actionId }, 'MCP confirmation question unanswered');
      return null;
    }
    if (confirmed === null) return null;
    if (!confirmed) {
      const rejected = await tools.reject(user, actionId, 'declined in the MCP client', caller);
      await caughtUp(deps, rejected.position, [ACTIONS]);
      return answered(
        { status: 'rejected', action_id: actionId, task_id: null, result: null },
        `You declined: action ${actionId} (${tool.name} ${said(params)}) is withdrawn; nothing ran.`,
      );
    }
    const decided = await tools.confirm(user, actionId, caller, signal);
    await caughtUp(deps, decided.position, READ_AFTER_DECISION);
    return outcomeAnswer(tool, decided.outcome, { task_id: decided.state.taskId, action_id: actionId });
  }

  /** A call that needs confirmation: recorded as a pending action, then decided or left waiting. */
  async function request(tool: Tool, params: Params, signal: AbortSignal): Promise<CallToolResult> {
    const caller = callerOf(session);
    const requested = await tools.request(user.name, tool.name, params, caller);
    await caughtUp(deps, requested.position, [ACTIONS]);
    const { actionId } = requested;
    const approval: ApprovalPolicy =
      requested.state.status === 'none' ? 'self' : (requested.state.approval ?? 'self');
    const expiresAt = requested.state.status === 'none' ? null : requested.state.expiresAt;
    // Only someone the approval policy names is asked; the requester of a four-eyes action is not.
    if (mayConfirm({ owner: user.name, approval }, user)) {
      const decided = await decide(tool, params, actionId, caller, signal);
      if (decided) return decided;
    }
    const how = !mayConfirm({ owner: user.name, approval }, user)
      ? `its approval policy names ${APPROVERS[approval]}, not you`
      : (session.noElicitation ??
        'this client cannot ask you (it declared no elicitation), or gave no answer');
    return answered(
      {
        status: 'pending',
        action_id: actionId,
        task_id: null,
        result: null,
        approval,
        expires_at: expiresAt,
        requires_confirmation: true,
      },
      `Nothing ran: ${tool.name} ${said(params)} is pending action ${actionId}, waiting for ${APPROVERS[approval]} to confirm it (approval: ${approval}) before ${expiresAt ?? 'it expires'}; ${how}. A person confirms or rejects it in the Assistant API or console (POST /api/method/assistant.api.confirm_action or reject_action with action_id ${actionId}).`,
    );
  }

  for (const { tool, policy } of await tools.available()) {
    const name = `${ASSISTANT_TOOL_PREFIX}${tool.name}`;
    server.registerTool(
      name,
      {
        title: `Assistant: ${tool.name.replace(/_/g, ' ')} (${tool.risk} risk)`,
        description: descriptionOf(tool, policy),
        inputSchema: inputSchemaOf(tool),
        annotations: {
          readOnlyHint: tool.risk === 'low',
          destructiveHint: tool.risk === 'high',
          idempotentHint: tool.idempotent ?? false,
          openWorldHint: tool.name === 'scrape_url',
        },
        _meta: { [RISK_META]: tool.risk, [CONFIRMATION_META]: policy === 'confirm' },
      },
      guarded(session, name, async (args: unknown, signal) => {
        const checked = tools.registry.validate(tool.name, (args ?? {}) as Params);
        if (!checked.ok) {
          const issues = checked.issues.map((issue) => `${issue.field || 'params'} ${issue.message}`);
          return refused(`validation_error: ${issues.join('; ')}`);
        }
        // The policy as it is now: the settings may have changed since the tools were listed.
        const now = await tools.policyOf(tool);
        if (now === 'disabled')
          return refused(`tool_disabled: the assistant's settings disable ${tool.name}`);
        if (now === 'confirm') return request(tool, checked.params, signal);
        const { taskId, outcome } = await tools.execute(
          user.name,
          tool.name,
          checked.params,
          callerOf(session),
          signal,
        );
        return outcomeAnswer(tool, outcome, { task_id: taskId, action_id: null });
      }),
    );
  }
}
