import { ACTION_STATUSES, mayConfirm } from '../../domain/action/decider.js';
import type { DecidingUser } from '../../domain/action/commands.js';
import { APPROVAL_POLICIES } from '../../domain/action/events.js';
import { ACTIONS, type ActionView } from '../../projections/actionsProjection.js';
import { TOOL_CATEGORIES, type Tool } from '../../tools/registry.js';
import type { CallOutcome, Tools } from '../../tools/tools.js';
import type { ToolPolicy } from '../../settings/definitions.js';
import { assistantErrorSchema } from '../errorHandler.js';
import { HttpError } from '../httpError.js';
import { defineRoute, type Route, type Schema } from '../route.js';
import { principalOf } from './auth.js';
import { envelope, envelopeSchema } from './envelope.js';
import { MAX_PAGE_SIZE } from './conversationRoutes.js';

const TOOL_TAGS = ['Assistant: tools'];
const ACTION_TAGS = ['Assistant: confirmations'];
const actionId = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description: 'Id of the pending action',
} as const;
const invalid = { description: 'Invalid parameters', schema: assistantErrorSchema };
const notFound = {
  description: 'No such action that the current user requested or may approve',
  schema: assistantErrorSchema,
};
const conflict = {
  description: 'The action was rejected, has expired, or was confirmed already (reject)',
  schema: assistantErrorSchema,
};

const callResultSchema = {
  type: 'object',
  required: ['success', 'result', 'execution_time_ms'],
  properties: {
    success: { type: 'boolean' },
    result: {},
    execution_time_ms: { type: 'number' },
    error: { type: 'object', properties: { type: { type: 'string' }, message: { type: 'string' } } },
    requires_confirmation: { type: 'boolean' },
    action_id: { type: 'string' },
    expires_at: { type: 'string' },
    approval: {
      enum: APPROVAL_POLICIES,
      description: 'Who confirms the pending action: its requester, an administrator, or another user',
    },
    task_id: { type: 'string' },
    status: { enum: [...ACTION_STATUSES, 'running'] },
  },
} as const satisfies Schema;

const actionSchema = {
  type: 'object',
  required: [
    'action_id',
    'tool_name',
    'params',
    'risk_level',
    'status',
    'created_at',
    'expires_at',
    'requested_by',
    'approval',
    'can_confirm',
  ],
  properties: {
    action_id: { type: 'string' },
    requested_by: { type: 'string', description: 'The user whose call this is (it runs with their rights)' },
    approval: {
      enum: APPROVAL_POLICIES,
      description:
        'Who confirms it: its requester (self), an administrator (admin), or any other user (other_user)',
    },
    can_confirm: {
      type: 'boolean',
      description: 'Whether the current user may confirm it (the requester may always reject it)',
    },
    tool_name: { type: 'string' },
    params: { type: 'object' },
    risk_level: { enum: ['low', 'medium', 'high'] },
    status: { enum: ACTION_STATUSES },
    created_at: { type: 'string' },
    expires_at: { type: 'string' },
  },
} as const satisfies Schema;

/** Who the current user is when deciding actions. */
const decidingUser = (koa: Parameters<typeof principalOf>[0]): DecidingUser => {
  const { name, admin } = principalOf(koa);
  return { name, admin };
};

function toolData(tool: Tool, policy: ToolPolicy, includeSchema: boolean) {
  return {
    name: tool.name,
    description: tool.description,
    category: tool.category,
    risk_level: tool.risk,
    requires_confirmation: policy === 'confirm',
    ...(includeSchema ? { parameters: tool.params } : {}),
  };
}

function actionData(action: ActionView, viewer: DecidingUser) {
  return {
    action_id: action.id,
    requested_by: action.owner,
    approval: action.approval,
    can_confirm: mayConfirm(action, viewer),
    tool_name: action.tool,
    params: action.params,
    risk_level: action.risk,
    status: action.status,
    created_at: action.createdAt,
    expires_at: action.expiresAt,
  };
}

/** A finished call's fields, or (status 202) that it still runs after the wait. */
function callData(outcome: CallOutcome, waitedMs: number) {
  if (outcome.state === 'running') {
    return {
      status: 202,
      data: { success: false, result: null, execution_time_ms: waitedMs, status: 'running' },
    };
  }
  return {
    status: 200,
    data: {
      success: outcome.success,
      result: outcome.result,
      execution_time_ms: outcome.executionTimeMs,
      ...(outcome.error ? { error: outcome.error } : {}),
    },
  };
}

/**
 * Tools and confirmations. A call runs in a worker and the request waits for it; a call that needs
 * confirmation (a high-risk tool, or one the settings say so of; a tool they disable is refused)
 * runs nothing and answers the pending action its owner may confirm or reject. Another user's
 * action is answered 404, as an unknown one is.
 */
export function toolRoutes(deps: { tools: Tools }): Route[] {
  const { tools } = deps;
  const { registry } = tools;
  return [
    defineRoute({
      method: 'get',
      path: '/assistant.api.get_available_tools',
      operationId: 'assistantGetAvailableTools',
      summary: 'The tools the assistant can run, with their risk levels',
      tags: TOOL_TAGS,
      query: {
        type: 'object',
        properties: {
          include_schema: { type: 'boolean', default: false },
          category: { enum: [...TOOL_CATEGORIES] },
        },
      },
      responses: {
        200: {
          description: 'Tools, by name',
          schema: envelopeSchema({
            type: 'object',
            required: ['tools', 'count'],
            properties: { tools: { type: 'array', items: { type: 'object' } }, count: { type: 'integer' } },
          }),
        },
        422: invalid,
      },
      async handle({ query }) {
        // Tools the settings disable are not offered at all.
        const found = (await tools.available(query.category ?? null)).map(({ tool, policy }) =>
          toolData(tool, policy, query.include_schema),
        );
        return { body: envelope({ tools: found, count: found.length }) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/assistant.api.execute_tool',
      operationId: 'assistantExecuteTool',
      summary: 'Run a tool (a high-risk one becomes a pending action instead)',
      tags: TOOL_TAGS,
      rateLimit: 'tools',
      readAfterWrite: [ACTIONS],
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          required: ['tool_name'],
          properties: {
            tool_name: { type: 'string', minLength: 1, maxLength: 64 },
            params: { type: 'object', default: {} },
          },
        },
      },
      responses: {
        200: {
          description: 'What the tool returned, or the pending action',
          schema: envelopeSchema(callResultSchema),
        },
        202: {
          description: 'The tool still runs after the wait (follow `task_id`)',
          schema: envelopeSchema(callResultSchema),
        },
        403: { description: 'The settings disable this tool', schema: assistantErrorSchema },
        404: { description: 'No such tool', schema: assistantErrorSchema },
        422: invalid,
      },
      async handle({ body, caller, koa, signal }) {
        const owner = principalOf(koa).name;
        const tool = registry.get(body.tool_name);
        if (!tool) throw new HttpError(404, 'tool_not_found', `No tool named ${body.tool_name}`);
        const policy = await tools.policyOf(tool);
        if (policy === 'disabled') {
          throw new HttpError(
            403,
            'tool_disabled',
            `The tool ${tool.name} is disabled by the assistant's settings`,
          );
        }
        const checked = registry.validate(tool.name, (body.params ?? {}) as Record<string, unknown>);
        if (!checked.ok) {
          const issues = checked.issues.map((issue) => ({
            location: 'body' as const,
            field: issue.field ? `params.${issue.field}` : 'params',
            message: issue.message,
          }));
          const summary = issues.map((issue) => `body.${issue.field} ${issue.message}`).join('; ');
          throw new HttpError(422, 'validation_error', summary, issues);
        }
        if (policy === 'confirm') {
          const requested = await tools.request(owner, tool.name, checked.params, caller);
          const pending = requested.state.status === 'none' ? null : requested.state;
          return {
            body: envelope({
              success: false,
              result: null,
              execution_time_ms: 0,
              requires_confirmation: true,
              action_id: requested.actionId,
              expires_at: pending?.expiresAt,
              approval: pending?.approval ?? 'self',
            }),
            position: requested.position,
          };
        }
        const started = Date.now();
        const { taskId, outcome } = await tools.execute(owner, tool.name, checked.params, caller, signal);
        const { status, data } = callData(outcome, Date.now() - started);
        return { status, body: envelope({ ...data, task_id: taskId }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/assistant.api.list_pending_actions',
      operationId: 'assistantListPendingActions',
      summary:
        'Actions waiting for confirmation that the current user requested or may approve, oldest first',
      tags: ACTION_TAGS,
      query: {
        type: 'object',
        properties: {
          page: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1 },
          page_size: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 },
        },
      },
      responses: {
        200: {
          description: 'A page of pending actions (expired ones left out)',
          schema: envelopeSchema({
            type: 'object',
            required: ['actions', 'count', 'page', 'page_size', 'total', 'has_more'],
            properties: {
              actions: { type: 'array', items: actionSchema },
              count: { type: 'integer', description: 'Actions in this page' },
              page: { type: 'integer' },
              page_size: { type: 'integer' },
              total: { type: 'integer', description: 'Pending actions in all pages' },
              has_more: { type: 'boolean' },
            },
          }),
        },
        422: invalid,
      },
      async handle({ koa, query }) {
        const viewer = decidingUser(koa);
        const { actions, total } = await tools.pending(viewer, {
          page: query.page,
          pageSize: query.page_size,
        });
        return {
          body: envelope({
            actions: actions.map((action) => actionData(action, viewer)),
            count: actions.length,
            page: query.page,
            page_size: query.page_size,
            total,
            has_more: query.page * query.page_size < total,
          }),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/assistant.api.confirm_action',
      operationId: 'assistantConfirmAction',
      summary: 'Confirm a pending action: it runs, once, and its result is answered',
      tags: ACTION_TAGS,
      rateLimit: 'tools',
      readAfterWrite: [ACTIONS],
      body: {
        contentType: 'application/json',
        form: true,
        schema: { type: 'object', required: ['action_id'], properties: { action_id: actionId } },
      },
      responses: {
        200: { description: 'The action ran: its result', schema: envelopeSchema(callResultSchema) },
        202: {
          description: 'Confirmed; still running after the wait',
          schema: envelopeSchema(callResultSchema),
        },
        403: {
          description: "The action is the current user's, and its approval policy names someone else",
          schema: assistantErrorSchema,
        },
        404: notFound,
        409: conflict,
        422: invalid,
      },
      async handle({ body, caller, koa, signal }) {
        const started = Date.now();
        const confirmed = await tools.confirm(decidingUser(koa), body.action_id, caller, signal);
        const { status, data } = callData(confirmed.outcome, Date.now() - started);
        return {
          status,
          body: envelope({
            ...data,
            action_id: body.action_id,
            ...(confirmed.state.taskId ? { task_id: confirmed.state.taskId } : {}),
            status:
              confirmed.outcome.state === 'running' ? 'confirmed' : data.success ? 'executed' : 'failed',
          }),
          position: confirmed.position,
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/assistant.api.reject_action',
      operationId: 'assistantRejectAction',
      summary: 'Reject a pending action (nothing runs)',
      tags: ACTION_TAGS,
      readAfterWrite: [ACTIONS],
      body: {
        contentType: 'application/json',
        form: true,
        schema: {
          type: 'object',
          required: ['action_id'],
          properties: { action_id: actionId, reason: { type: ['string', 'null'], maxLength: 1_000 } },
        },
      },
      responses: {
        200: {
          description: 'The action, rejected',
          schema: envelopeSchema({
            type: 'object',
            required: ['action_id', 'status', 'reason'],
            properties: {
              action_id: { type: 'string' },
              status: { const: 'rejected' },
              reason: { type: ['string', 'null'] },
            },
          }),
        },
        404: notFound,
        409: conflict,
        422: invalid,
      },
      async handle({ body, caller, koa }) {
        const reason = body.reason?.trim() || null;
        const rejected = await tools.reject(decidingUser(koa), body.action_id, reason, caller);
        return {
          body: envelope({ action_id: body.action_id, status: 'rejected', reason: rejected.state.reason }),
          position: rejected.position,
        };
      },
    }),
  ];
}
