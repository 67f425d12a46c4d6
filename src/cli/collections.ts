import { existsSync } from 'node:fs';
import { eventLogPath, openEventStore } from '../adapters.js';
import { collectionAggregate } from '../commands/aggregates.js';
import { createCommandService } from '../commands/commandService.js';
import { ConfigError, type Config } from '../config.js';
import { collectionDecider, type CollectionState } from '../domain/collection/decider.js';
import { ACCESS_LEVELS, collectionEvents, type AccessLevel } from '../domain/collection/events.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { operator, runAdminCommand } from './adminCommand.js';
import { UsageError } from './usageError.js';

export const COLLECTIONS_USAGE = `  collections grant COLLECTION USER read|write
                        Let USER read (or also add to and delete from) COLLECTION. A collection with
                        grants is private: only its grantees and administrators see its documents.
  collections revoke COLLECTION USER
                        Withdraw USER's grant (the collection is open again once it has none).
  collections list      Print every collection's grants as JSON.`;

export class CollectionsUsageError extends UsageError {}

function argument(value: string | undefined, what: string): string {
  if (!value) throw new CollectionsUsageError(`collections: ${what} is missing`);
  return value;
}

/**
 * `archivist collections …`: grants are events of the collection's own stream, so a running server
 * honours them once its projection has applied them. Works beside a running server.
 */
export async function collectionsCommand(config: Config, args: readonly string[]): Promise<number> {
  const [sub, collection, user, level] = args;
  const known = ['grant', 'revoke', 'list'];
  if (!sub || !known.includes(sub)) {
    throw new CollectionsUsageError(
      `collections takes one of ${known.join(', ')}${sub ? `; got ${sub}` : ''}`,
    );
  }
  if (sub === 'grant' && !ACCESS_LEVELS.includes(level as AccessLevel)) {
    throw new CollectionsUsageError(
      `collections grant: the level is read or write${level ? `, not ${level}` : ''}`,
    );
  }
  if (config.eventStore === 'file' && !existsSync(eventLogPath(config.dataDir))) {
    throw new ConfigError(`no Archivist data in ${config.dataDir} (no events.db there): check DATA_DIR`);
  }
  const eventStore = await openEventStore(config, { pollIntervalMs: null });
  const collections = createCommandService(collectionAggregate, { eventStore, clock: () => new Date() });
  const print = (value: unknown): void => {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  };
  return runAdminCommand(async () => {
    const caller = operator();
    switch (sub) {
      case 'grant':
        await collections.execute(
          'GrantCollectionAccess',
          {
            collection: argument(collection, 'COLLECTION'),
            user: argument(user, 'USER'),
            level: level as AccessLevel,
          },
          caller,
        );
        print({ collection, user, level });
        return 0;
      case 'revoke':
        await collections.execute(
          'RevokeCollectionAccess',
          { collection: argument(collection, 'COLLECTION'), user: argument(user, 'USER') },
          caller,
        );
        print({ collection, user, revoked: true });
        return 0;
      default:
        process.stdout.write(`${JSON.stringify(await grantsOf(eventStore), null, 2)}\n`);
        return 0;
    }
  }, eventStore);
}

/** Every collection's grants, folded from the collections' own streams (no read model needed). */
async function grantsOf(
  eventStore: EventStore,
): Promise<Array<{ collection: string; grants: CollectionState['grants'] }>> {
  const states = new Map<string, CollectionState>();
  const events = await eventStore.readAll({ filter: { eventTypes: collectionEvents.types } });
  for (const recorded of events) {
    const event = collectionEvents.decode(recorded);
    const before = states.get(event.data.collection) ?? collectionDecider.initialState();
    states.set(event.data.collection, collectionDecider.evolve(before, event));
  }
  return [...states]
    .filter(([, state]) => Object.keys(state.grants).length > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([collection, state]) => ({ collection, grants: state.grants }));
}
