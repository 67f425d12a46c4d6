import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Caller } from '../commands/context.js';
import type { RiskLevel } from '../domain/action/events.js';

export type { RiskLevel } from '../domain/action/events.js';

export const TOOL_CATEGORIES = ['knowledge', 'tasks', 'conversations'] as const;
export type ToolCategory = (typeof TOOL_CATEGORIES)[number];

/** What a tool knows of who runs it: the user it acts for and the request (or action) behind it. */
export interface ToolContext {
  /** The user name the call acts for: tools over per-user data see only that user's. */
  owner: string;
  caller: Caller;
  signal: AbortSignal;
  /**
   * The call runs again after the worker running it died (only for `idempotent` tools): its effect
   * may already have happened, and the tool answers as it would have then.
   */
  resumed: boolean;
}

/**
 * A tool as the assistant offers it: `params` is a JSON schema (validated before anything runs),
 * `risk` decides whether a call runs at once (low, medium) or waits for the user's confirmation
 * (high). `run` gets params already validated, with defaults filled in; what it returns is JSON.
 * A tool reports an expected failure (no such document) by throwing a `DomainError`.
 */
export interface Tool {
  name: string;
  description: string;
  category: ToolCategory;
  risk: RiskLevel;
  params: Record<string, unknown>;
  /**
   * Running the call again after a crash has no further effect and answers the same: an interrupted
   * call is then run again (`context.resumed`); otherwise it fails rather than risk a second effect.
   */
  idempotent?: boolean;
  /**
   * What the caller may not ask at all, checked before a call that needs confirmation is recorded
   * as a pending action: it throws (a document in a collection the caller may not write), so no one
   * is asked to confirm what could never run.
   */
  precheck?(params: Record<string, unknown>, context: Pick<ToolContext, 'owner' | 'caller'>): Promise<void>;
  run(params: Record<string, unknown>, context: ToolContext): Promise<unknown>;
}

export interface ParamIssue {
  /** Dotted path inside `params` ('' for the whole object). */
  field: string;
  message: string;
}

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

function issuesOf(errors: ErrorObject[] | null | undefined): ParamIssue[] {
  return (errors ?? []).map((error) => {
    const path = error.instancePath.split('/').filter(Boolean);
    if (error.keyword === 'required')
      path.push(String((error.params as { missingProperty: string }).missingProperty));
    if (error.keyword === 'additionalProperties') {
      path.push(String((error.params as { additionalProperty: string }).additionalProperty));
    }
    return {
      field: path.join('.'),
      message: error.keyword === 'required' ? 'is required' : (error.message ?? 'is invalid'),
    };
  });
}

/**
 * The tools this build offers, by name. Params are checked strictly (JSON types as given, unknown
 * fields refused), with defaults filled in, so the worker runs exactly what was validated.
 */
export function createToolRegistry(tools: readonly Tool[]) {
  const ajv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: true, strict: false });
  const byName = new Map<string, { tool: Tool; check: ValidateFunction }>();
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`invalid tool name: ${tool.name}`);
    if (byName.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
    byName.set(tool.name, { tool, check: ajv.compile(tool.params) });
  }
  return {
    get: (name: string): Tool | null => byName.get(name)?.tool ?? null,
    list(category: string | null = null): Tool[] {
      return [...byName.values()]
        .map(({ tool }) => tool)
        .filter((tool) => !category || tool.category === category);
    },
    /** The params with defaults filled in, or the issues that make them invalid. */
    validate(
      name: string,
      params: Record<string, unknown>,
    ): { ok: true; params: Record<string, unknown> } | { ok: false; issues: ParamIssue[] } {
      const entry = byName.get(name);
      if (!entry) throw new Error(`unknown tool ${name}`);
      const copy = structuredClone(params);
      if (entry.check(copy)) return { ok: true, params: copy };
      return { ok: false, issues: issuesOf(entry.check.errors) };
    },
  };
}

export type ToolRegistry = ReturnType<typeof createToolRegistry>;
