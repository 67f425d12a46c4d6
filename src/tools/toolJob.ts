import { DomainError } from '../domain/shared/index.js';
import type { JobType } from '../workers/jobs.js';
import type { ToolRegistry } from './registry.js';

export const TOOL_JOB = 'tool';

/** What a tool task carries: the call, validated already, and whom it acts for. */
export interface ToolTaskInput {
  tool: string;
  params: Record<string, unknown>;
  owner: string;
  actorId: string;
  correlationId: string;
  /** Set when the call is a confirmed pending action (the task then has the action's id). */
  actionId?: string;
}

/** A tool task's result: the `execute_tool` answer's fields. */
export interface ToolTaskResult {
  success: boolean;
  result: unknown;
  error?: { type: string; message: string };
  execution_time_ms: number;
}

/**
 * Runs a tool call in a worker. Never resumed and never retried: a tool may change the world (delete
 * a document), so an attempt interrupted by a crash fails the task rather than run the call twice.
 * An expected failure of the tool (a `DomainError`: no such document) is a result with
 * `success: false`; anything else fails the task.
 */
export function toolJob(registry: ToolRegistry): JobType {
  return {
    name: TOOL_JOB,
    resumable: false,
    maxAttempts: 1,
    concurrency: 4,
    timeoutMs: 120_000,
    async run({ input, signal }) {
      const call = input as unknown as ToolTaskInput;
      const tool = registry.get(call.tool);
      if (!tool) throw new Error(`unknown tool ${call.tool}`);
      const started = performance.now();
      const elapsed = (): number => Math.round((performance.now() - started) * 100) / 100;
      const context = {
        owner: call.owner,
        caller: { actorId: call.actorId, correlationId: call.correlationId },
        signal,
      };
      try {
        const result = await tool.run(call.params, context);
        return {
          success: true,
          result: result ?? null,
          execution_time_ms: elapsed(),
        } satisfies ToolTaskResult;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return {
          success: false,
          result: null,
          error: { type: error.code, message: error.message },
          execution_time_ms: elapsed(),
        } satisfies ToolTaskResult;
      }
    },
  };
}
