import type { Clock } from '../commands/context.js';
import type { Logger } from '../log.js';
import type { ReadStore } from '../readStore/readStore.js';

/** Where every running process says it is alive, and what it does. */
const MEMBERS_COLLECTION = 'sys_members';

/** One running Archivist process, as it last said so. */
export interface MemberDoc {
  [key: string]: unknown;
  id: string;
  host: string;
  pid: number;
  roles: string[];
  /** The work queues it consumes (job types), when it runs the worker role. */
  queues: string[];
  startedAt: string;
  heartbeatAt: string;
  /** Epoch milliseconds after which, without a newer heartbeat, the process is presumed dead. */
  expiresAt: number;
}

export interface MembershipOptions {
  readStore: Pick<ReadStore, 'ensureCollection' | 'write'>;
  member: Pick<MemberDoc, 'id' | 'host' | 'pid' | 'roles' | 'queues'>;
  clock: Clock;
  log: Logger;
  /** How often the heartbeat is written. */
  heartbeatMs: number;
  /** A heartbeat older than this means the process is gone: its claims may be taken over. */
  timeoutMs: number;
}

/**
 * This process's heartbeat in the read store, so that any role on any host can tell which workers
 * and projectors are alive (readiness says "no worker alive for queue X" instead of guessing) and
 * when a claim's holder is gone. A missed heartbeat is logged, never thrown: an engine outage must
 * not end the process that will write the next one once the engine is back.
 */
export function createMembership(options: MembershipOptions) {
  const { readStore, member, clock, log } = options;
  const startedAt = clock().toISOString();
  let timer: NodeJS.Timeout | null = null;
  let failing = false;

  async function beat(): Promise<void> {
    const now = clock();
    const doc: MemberDoc = {
      ...member,
      startedAt,
      heartbeatAt: now.toISOString(),
      expiresAt: now.getTime() + options.timeoutMs,
    };
    await readStore.write([{ op: 'upsert', collection: MEMBERS_COLLECTION, doc }]);
  }

  function tick(): void {
    beat().then(
      () => {
        if (failing) log.info('liveness heartbeat written again');
        failing = false;
      },
      (error: unknown) => {
        // Once per outage: the next heartbeats fail for the same reason.
        if (!failing) log.warn({ err: error }, 'could not write the liveness heartbeat; retrying');
        failing = true;
      },
    );
  }

  return {
    async start(): Promise<void> {
      await readStore.ensureCollection({ name: MEMBERS_COLLECTION, indexes: ['expiresAt'] });
      await beat().catch((error: unknown) => {
        failing = true;
        log.warn({ err: error }, 'could not write the first liveness heartbeat; retrying');
      });
      timer = setInterval(tick, options.heartbeatMs);
      timer.unref();
    },
    async stop(): Promise<void> {
      if (timer) clearInterval(timer);
      timer = null;
      // Said at once, so others take over now instead of after the timeout.
      await readStore
        .write([{ op: 'delete', collection: MEMBERS_COLLECTION, id: member.id }])
        .catch(() => undefined);
    },
  };
}

/** The processes whose heartbeat has not expired at `now`. */
async function liveMembers(readStore: Pick<ReadStore, 'find'>, now: Date): Promise<MemberDoc[]> {
  return readStore.find<MemberDoc>(MEMBERS_COLLECTION, {
    filter: { expiresAt: { $gt: now.getTime() } },
    limit: 10_000,
  });
}

/**
 * What readiness says of the workers: healthy when every job queue has a live worker consuming it;
 * otherwise which queues have none.
 */
export async function workersHealth(
  readStore: Pick<ReadStore, 'find'>,
  queues: readonly string[],
  now: Date,
): Promise<{ healthy: boolean; reason: string | null }> {
  const members = await liveMembers(readStore, now);
  const served = new Set(members.flatMap((member) => member.queues));
  const orphaned = queues.filter((queue) => !served.has(queue));
  const workers = members.filter((member) => member.roles.includes('worker')).length;
  if (orphaned.length > 0) {
    return { healthy: false, reason: `no worker alive for queue ${orphaned.join(', ')}` };
  }
  return { healthy: true, reason: `${workers} worker process${workers === 1 ? '' : 'es'} alive` };
}
