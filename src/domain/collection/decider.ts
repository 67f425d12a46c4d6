import type { Decider } from '../shared/index.js';
import { NotFoundError, RuleViolationError } from '../shared/index.js';
import type { CollectionCommand } from './commands.js';
import { ACCESS_LEVELS, COLLECTION_NAME, type AccessLevel, type CollectionEvent } from './events.js';

/** Who may read or write a collection: user name → level. Empty: the collection is open to everyone. */
export type CollectionState = { grants: Readonly<Record<string, AccessLevel>> };

/**
 * A collection's grants. Granting the level a user has already is nothing to do; granting another
 * level changes it; revoking a user who has no grant is refused (a typing slip would otherwise pass
 * unseen).
 */
export const collectionDecider: Decider<CollectionCommand, CollectionEvent, CollectionState> = {
  decide(command, state) {
    const { collection, user } = command.data;
    if (!COLLECTION_NAME.test(collection)) {
      throw new RuleViolationError(
        'invalid_collection',
        `Collection names are lower-case letters, digits, - and _ (up to 64): ${JSON.stringify(collection)}`,
        { collection },
      );
    }
    if (user.trim() === '' || user.length > 200) {
      throw new RuleViolationError('invalid_user', 'A grant names a user (1 to 200 characters)', { user });
    }
    switch (command.type) {
      case 'GrantCollectionAccess': {
        const { level } = command.data;
        if (!ACCESS_LEVELS.includes(level)) {
          throw new RuleViolationError(
            'invalid_level',
            `Access is read or write, not ${JSON.stringify(level)}`,
            {
              level,
            },
          );
        }
        return state.grants[user] === level
          ? []
          : [{ type: 'CollectionAccessGranted', data: { collection, user, level } }];
      }
      case 'RevokeCollectionAccess':
        if (state.grants[user] === undefined) {
          throw new NotFoundError('grant_not_found', `${user} has no grant on collection ${collection}`, {
            collection,
            user,
          });
        }
        return [{ type: 'CollectionAccessRevoked', data: { collection, user } }];
    }
  },
  evolve(state, event) {
    const grants = { ...state.grants };
    if (event.type === 'CollectionAccessGranted') grants[event.data.user] = event.data.level;
    else delete grants[event.data.user];
    return { grants };
  },
  initialState: () => ({ grants: {} }),
};
