import type { Decider, EventDraft } from '../shared/index.js';
import { InvalidStateError, NotFoundError } from '../shared/index.js';
import type { UserCommand } from './commands.js';
import type { Role, UserEvent } from './events.js';

export interface ApiKeyState {
  keyId: string;
  secretHash: string;
  issuedAt: string;
  revokedAt: string | null;
}

export type UserState =
  | { status: 'none' }
  | {
      status: 'active';
      userId: string;
      name: string;
      roles: Role[];
      passwordHash: string | null;
      apiKeys: ApiKeyState[];
      createdAt: string;
    };

type Draft = EventDraft<UserEvent>;
type ActiveUser = Extract<UserState, { status: 'active' }>;

function existing(state: UserState, userId: string): ActiveUser {
  if (state.status === 'none') throw new NotFoundError('user_not_found', `User ${userId} does not exist`);
  return state;
}

function decide(command: UserCommand, state: UserState): Draft[] {
  const { userId } = command.data;
  switch (command.type) {
    case 'CreateUser': {
      const { name, admin } = command.data;
      if (state.status === 'active') {
        // The same creation again (a retried command) is nothing to do; another one is a conflict.
        if (state.name === name) return [];
        throw new InvalidStateError('user_exists', `User ${userId} exists already`);
      }
      return [
        { type: 'UserCreated', data: { userId, name } },
        ...(admin ? [{ type: 'RoleGranted' as const, data: { userId, role: 'admin' as const } }] : []),
      ];
    }
    case 'SetPassword': {
      const user = existing(state, userId);
      if (user.passwordHash === command.data.passwordHash) return [];
      return [{ type: 'PasswordSet', data: { userId, passwordHash: command.data.passwordHash } }];
    }
    case 'IssueApiKey': {
      const user = existing(state, userId);
      const { keyId, secretHash } = command.data;
      const same = user.apiKeys.find((key) => key.keyId === keyId);
      if (same) {
        if (same.secretHash === secretHash && same.revokedAt === null) return [];
        throw new InvalidStateError('api_key_exists', `API key ${keyId} exists already`);
      }
      return [{ type: 'ApiKeyIssued', data: { userId, keyId, secretHash } }];
    }
    case 'RevokeApiKey': {
      const user = existing(state, userId);
      const key = user.apiKeys.find((candidate) => candidate.keyId === command.data.keyId);
      if (!key) {
        throw new NotFoundError(
          'api_key_not_found',
          `User ${user.name} has no API key ${command.data.keyId}`,
        );
      }
      if (key.revokedAt !== null) return [];
      return [{ type: 'ApiKeyRevoked', data: { userId, keyId: key.keyId } }];
    }
    case 'GrantRole': {
      const user = existing(state, userId);
      if (user.roles.includes(command.data.role)) return [];
      return [{ type: 'RoleGranted', data: { userId, role: command.data.role } }];
    }
  }
}

function evolve(state: UserState, event: UserEvent): UserState {
  if (event.type === 'UserCreated') {
    return {
      status: 'active',
      userId: event.data.userId,
      name: event.data.name,
      roles: [],
      passwordHash: null,
      apiKeys: [],
      createdAt: event.metadata.now,
    };
  }
  if (state.status !== 'active') return state;
  switch (event.type) {
    case 'PasswordSet':
      return { ...state, passwordHash: event.data.passwordHash };
    case 'ApiKeyIssued':
      return {
        ...state,
        apiKeys: [
          ...state.apiKeys,
          {
            keyId: event.data.keyId,
            secretHash: event.data.secretHash,
            issuedAt: event.metadata.now,
            revokedAt: null,
          },
        ],
      };
    case 'ApiKeyRevoked':
      return {
        ...state,
        apiKeys: state.apiKeys.map((key) =>
          key.keyId === event.data.keyId && key.revokedAt === null
            ? { ...key, revokedAt: event.metadata.now }
            : key,
        ),
      };
    case 'RoleGranted':
      return state.roles.includes(event.data.role)
        ? state
        : { ...state, roles: [...state.roles, event.data.role] };
  }
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  decide,
  evolve,
  initialState: () => ({ status: 'none' }),
};
