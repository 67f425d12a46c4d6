import type { Caller, Clock } from '../commands/context.js';
import type { Conversations } from '../conversations/conversations.js';
import { DomainError } from '../domain/shared/index.js';
import type { Logger } from '../log.js';
import type { ConversationView } from '../projections/conversationsProjection.js';
import { CONVERSATIONS } from '../projections/conversationsProjection.js';
import type { ReadModels } from '../projections/readModels.js';
import type { ReadStore } from '../readStore/readStore.js';
import { sweepLoop } from './sweepLoop.js';

const SCHEDULER: Caller = { actorId: 'system:conversation-purge', correlationId: 'conversation-purge' };
export const CONVERSATION_PURGE_LEASE = 'scheduler:conversation-purge';

/**
 * Purges conversations deleted `purgeAfterMs` ago or longer. One process sweeps at a time (a lease
 * in the read store, shared by every worker process); and were two to sweep anyway, the result is
 * the same: the decider checks from the conversation's own stream that the purge is due, and the
 * purge record is written once (a second purge of a stream is nothing to do). The purge reactor
 * then deletes the stream, and the projection what it derived.
 */
export function createConversationPurgeScheduler(options: {
  conversations: Pick<Conversations, 'purge' | 'purgeAfterMs'>;
  readModels: ReadModels;
  leases: Pick<ReadStore, 'acquireLease' | 'releaseLease'>;
  owner: string;
  clock: Clock;
  log: Logger;
  intervalMs: number;
  /** Conversations purged per sweep at most (the next sweep takes the rest). */
  batch?: number;
  /**
   * Purges what the conversation's content was copied into outside its stream (the tasks that ran
   * its tool calls), before the conversation itself: a sweep cut short repeats it harmlessly.
   */
  purgeDerived?: (conversationId: string, caller: Caller) => Promise<void>;
}) {
  const { conversations, readModels, leases, clock, log } = options;
  const batch = options.batch ?? 200;

  /** Purges what is due now; returns the ids purged. Does nothing while another process holds the lease. */
  async function sweep(): Promise<string[]> {
    const lease = await leases.acquireLease(CONVERSATION_PURGE_LEASE, options.owner, 60_000);
    if (!lease) return [];
    const purged: string[] = [];
    try {
      const cutoff = new Date(clock().getTime() - conversations.purgeAfterMs).toISOString();
      const due = await readModels.find<ConversationView>(CONVERSATIONS, {
        filter: { status: 'Deleted', deletedAt: { $lte: cutoff } },
        sort: [['deletedAt', 1]],
        limit: batch,
      });
      for (const conversation of due) {
        try {
          await options.purgeDerived?.(conversation.id, SCHEDULER);
          const outcome = await conversations.purge(conversation.id, SCHEDULER);
          if (outcome.appended.length > 0) purged.push(conversation.id);
        } catch (error) {
          // Restored meanwhile, or already gone: the read model lagged. Nothing to purge.
          if (!(error instanceof DomainError)) throw error;
          log.debug({ conversationId: conversation.id, reason: error.code }, 'conversation not purged');
        }
      }
      if (purged.length > 0) log.info({ count: purged.length }, 'deleted conversations purged');
    } finally {
      await leases.releaseLease(CONVERSATION_PURGE_LEASE, options.owner).catch(() => undefined);
    }
    return purged;
  }

  const loop = sweepLoop({ sweep, intervalMs: options.intervalMs, log, name: 'conversation purge' });
  return { start: loop.start, sweep, stop: loop.stop };
}

export type ConversationPurgeScheduler = ReturnType<typeof createConversationPurgeScheduler>;
