import { userEvents } from '../domain/user/events.js';
import type { Projection } from './projection.js';

export const USERS = 'users';
export const API_KEYS = 'api_keys';

/** A user as queries see it: no password hash, no key secrets. `nameKey` is the name in lower case. */
export type UserView = {
  id: string;
  name: string;
  nameKey: string;
  admin: boolean;
  hasPassword: boolean;
  createdAt: string;
  updatedAt: string;
  /** Global position of `UserCreated`: orders users strictly. */
  sequence: number;
};

/** An API key by its id, for lookups and listings (the secret's hash stays in the user's stream). */
export type ApiKeyView = {
  id: string;
  userId: string;
  issuedAt: string;
  revokedAt: string | null;
};

/**
 * Users and their API keys, for lookups by name, by id and by key id, and for listings. Credentials
 * are checked against the user's own stream, not here (see `src/users/users.ts`): a revocation
 * must hold in every process at once, whatever the projection's lag.
 */
export const usersProjection: Projection = {
  name: USERS,
  version: 1,
  handles: userEvents.types,
  collections: [
    { name: USERS, indexes: ['nameKey', 'sequence'] },
    { name: API_KEYS, indexes: ['userId'] },
  ],
  async apply(recorded, view) {
    const event = userEvents.decode(recorded);
    const now = recorded.metadata.now;
    const { userId } = event.data;
    switch (event.type) {
      case 'UserCreated': {
        const user: UserView = {
          id: userId,
          name: event.data.name,
          nameKey: event.data.name.toLowerCase(),
          admin: false,
          hasPassword: false,
          createdAt: now,
          updatedAt: now,
          sequence: recorded.position,
        };
        view.put(USERS, user);
        return;
      }
      case 'PasswordSet':
        return view.patch(USERS, userId, { hasPassword: true, updatedAt: now });
      case 'RoleGranted':
        return view.patch(USERS, userId, { admin: true, updatedAt: now });
      case 'ApiKeyIssued': {
        const key: ApiKeyView = { id: event.data.keyId, userId, issuedAt: now, revokedAt: null };
        view.put(API_KEYS, key);
        return view.patch(USERS, userId, { updatedAt: now });
      }
      case 'ApiKeyRevoked': {
        const key = await view.get<ApiKeyView>(API_KEYS, event.data.keyId);
        // Revoked once: a replayed revocation keeps the first time.
        if (key && key.revokedAt === null) await view.patch(API_KEYS, event.data.keyId, { revokedAt: now });
        return view.patch(USERS, userId, { updatedAt: now });
      }
    }
  },
};
