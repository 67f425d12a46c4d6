/** One part of the system as readiness reports it. */
export interface ComponentHealth {
  name: string;
  healthy: boolean;
  /** Why it is not healthy, or a short note on its state. */
  reason: string | null;
}

export interface HealthCheck {
  name: string;
  check(): Promise<Omit<ComponentHealth, 'name'>>;
}

/** Runs every check with a time limit; a check that throws or hangs is unhealthy, with the reason. */
export async function checkAll(
  checks: readonly HealthCheck[],
  timeoutMs = 2_000,
): Promise<ComponentHealth[]> {
  return Promise.all(
    checks.map(async ({ name, check }) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const result = await Promise.race([
          check(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
        return { name, ...result };
      } catch (error) {
        return { name, healthy: false, reason: (error as Error).message };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
}

/** A component the product will have but this build does not: honest about it. */
export function notBuilt(name: string, reason: string): HealthCheck {
  return { name, check: async () => ({ healthy: false, reason }) };
}
