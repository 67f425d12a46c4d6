import type { EventStore } from '../eventStore/eventStore.js';
import type { ProjectionEngine } from './engine.js';

export type ProjectionsState = 'live' | 'catching_up' | 'outdated' | 'failed' | 'stopped';

export interface ProjectionProgress {
  /** Position of the newest event in the log. */
  head: number;
  state: ProjectionsState;
  /** Why the projections are not live; null when they are. */
  reason: string | null;
}

/**
 * Where the projections stand against the log, in one place so that readiness and `/health/stats`
 * can never disagree: failed beats outdated (a newer version is active and this process's code
 * is older) beats stopped (behind, and no process holds the projection) beats catching up.
 */
export async function projectionProgress(
  engine: Pick<ProjectionEngine, 'status' | 'waitFor' | 'positions'>,
  eventStore: Pick<EventStore, 'headPosition'>,
): Promise<ProjectionProgress> {
  const statuses = engine.status();
  const [head, positions] = await Promise.all([eventStore.headPosition(), engine.positions()]);
  const failed = statuses.filter((status) => status.state === 'failed');
  if (failed.length > 0) {
    const reason = failed.map((status) => `${status.name}: ${status.error}`).join('; ');
    return { head, state: 'failed', reason };
  }
  const outdated = statuses.filter((status) => status.state === 'outdated');
  if (outdated.length > 0) {
    const names = outdated.map((status) => `${status.name} v${status.version}`).join(', ');
    return {
      head,
      state: 'outdated',
      reason: `${names}: a newer version is active; this process runs older code`,
    };
  }
  const caughtUp = await engine.waitFor(head, { timeoutMs: 0 });
  if (caughtUp) return { head, state: 'live', reason: null };
  // Behind, and no process applies them: waiting would not help, and "catching up" would be a lie.
  const stopped = positions.filter((position) => position.state === 'stopped' && position.position < head);
  if (stopped.length > 0) {
    const names = stopped.map((position) => `${position.name} at ${Math.max(0, position.position)}`);
    return {
      head,
      state: 'stopped',
      reason: `no projector running: ${names.join(', ')} of position ${head}`,
    };
  }
  return { head, state: 'catching_up', reason: `catching up to position ${head}` };
}
