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
 * Runs a tool call in a worker. Never retried after a failure. An attempt interrupted by a crash (its
 * worker died mid-call) is run once more only for an `idempotent` tool, told it is `resumed` — the
 * effect may have happened, and the tool answers as it would have — so a confirmed action's effect
 * happens once and its outcome is still recorded; any other tool may change the world twice, so its
 * task fails instead. An expected failure of the tool (a `DomainError`: no such document) is a result
 * with `success: false`; anything else fails the task.
 */
export function toolJob(registry: ToolRegistry): JobType {
  return {
    name: TOOL_JOB,
    resumable: true,
    maxAttempts: 2,
    concurrency: 4,
    timeoutMs: 120_000,
    async run({ input, signal, attempt }) {
      const call = input as unknown as ToolTaskInput;
      const tool = registry.get(call.tool);
      if (!tool) throw new Error(`unknown tool ${call.tool}`);
      const resumed = attempt > 1;
      if (resumed && !tool.idempotent) {
        throw new Error(
          `the worker running ${call.tool} stopped mid-call; not run again, as its effect may have happened`,
        );
      }
      const started = performance.now();
      const elapsed = (): number => Math.round((performance.now() - started) * 100) / 100;
      const context = {
        owner: call.owner,
        caller: { actorId: call.actorId, correlationId: call.correlationId },
        signal,
        resumed,
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
