import { settleWithin } from './settleWithin.js';

/** One part of the system as readiness reports it. */
export interface ComponentHealth {
  name: string;
  healthy: boolean;
  /** Whether readiness depends on it (the stores, bus and projections always; models when configured so). */
  required: boolean;
  /** Why it is not healthy, or a short note on its state. */
  reason: string | null;
}

export interface HealthCheck {
  name: string;
  required: boolean;
  check(): Promise<Omit<ComponentHealth, 'name' | 'required'>>;
}

/** The components readiness can be made to require besides the core ones (`READY_REQUIRES`). */
export const OPTIONAL_COMPONENTS = ['embedder', 'llm', 'vector_store', 'reranker', 'workers'] as const;
export type OptionalComponent = (typeof OPTIONAL_COMPONENTS)[number];

/** Ready when every required component is healthy; an optional one only reports its state. */
export function isReady(components: readonly ComponentHealth[]): boolean {
  return components.every((component) => !component.required || component.healthy);
}

/** Runs every check with a time limit; a check that throws or hangs is unhealthy, with the reason. */
export async function checkAll(
  checks: readonly HealthCheck[],
  timeoutMs = 2_000,
): Promise<ComponentHealth[]> {
  return Promise.all(
    checks.map(async ({ name, required, check }) => {
      try {
        const result = await settleWithin(
          check(),
          timeoutMs,
          () => new Error(`no answer within ${timeoutMs} ms`),
        );
        return { name, required, ...result };
      } catch (error) {
        return { name, required, healthy: false, reason: (error as Error).message };
      }
    }),
  );
}
