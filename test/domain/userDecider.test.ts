import { expect } from 'chai';
import { spec } from '../../src/domain/shared/deciderSpec.js';
import type { Metadata } from '../../src/domain/shared/index.js';
import { fold } from '../../src/domain/shared/index.js';
import type { UserCommand } from '../../src/domain/user/commands.js';
import { userDecider } from '../../src/domain/user/decider.js';
import type { UserEvent } from '../../src/domain/user/events.js';

const metadata: Metadata = { now: '2026-11-24T10:00:00.000Z', actorId: 'system:cli', correlationId: 'c1' };
const userId = '0123456789abcdef';
const keyId = `${userId}aaaaaaaaaaaa`;
const command = <T extends UserCommand['type']>(
  type: T,
  data: Extract<UserCommand, { type: T }>['data'],
): UserCommand => ({ type, data, metadata }) as UserCommand;

const created = { type: 'UserCreated', data: { userId, name: 'alice' } } as const;
const issued = { type: 'ApiKeyIssued', data: { userId, keyId, secretHash: 'h1' } } as const;

describe('user decider', () => {
  const user = spec(userDecider);

  it('creates a user, granting the admin role in the same decision when asked', () => {
    user
      .given([])
      .when(command('CreateUser', { userId, name: 'alice', admin: false }))
      .then([created]);
    user
      .given([])
      .when(command('CreateUser', { userId, name: 'root', admin: true }))
      .then([
        { type: 'UserCreated', data: { userId, name: 'root' } },
        { type: 'RoleGranted', data: { userId, role: 'admin' } },
      ]);
  });

  it('takes the same creation again as nothing to do, and refuses another one', () => {
    user
      .given([created])
      .when(command('CreateUser', { userId, name: 'alice', admin: false }))
      .then([]);
    user
      .given([created])
      .when(command('CreateUser', { userId, name: 'bob', admin: false }))
      .thenThrows('user_exists');
  });

  it('sets a password hash, and does nothing when it is the same hash', () => {
    const set = { type: 'PasswordSet', data: { userId, passwordHash: 'scrypt$x' } } as const;
    user
      .given([created])
      .when(command('SetPassword', { userId, passwordHash: 'scrypt$x' }))
      .then([set]);
    user
      .given([created, set])
      .when(command('SetPassword', { userId, passwordHash: 'scrypt$x' }))
      .then([]);
    user
      .given([])
      .when(command('SetPassword', { userId, passwordHash: 'scrypt$x' }))
      .thenThrows('user_not_found');
  });

  it('issues API keys, idempotently for the same key and refusing a clash of ids', () => {
    user
      .given([created])
      .when(command('IssueApiKey', { userId, keyId, secretHash: 'h1' }))
      .then([issued]);
    user
      .given([created, issued])
      .when(command('IssueApiKey', { userId, keyId, secretHash: 'h1' }))
      .then([]);
    user
      .given([created, issued])
      .when(command('IssueApiKey', { userId, keyId, secretHash: 'h2' }))
      .thenThrows('api_key_exists');
  });

  it('revokes a key once; an unknown key is not found', () => {
    const revoked = { type: 'ApiKeyRevoked', data: { userId, keyId } } as const;
    user.given([created, issued]).when(command('RevokeApiKey', { userId, keyId })).then([revoked]);
    user.given([created, issued, revoked]).when(command('RevokeApiKey', { userId, keyId })).then([]);
    user
      .given([created])
      .when(command('RevokeApiKey', { userId, keyId: 'nope' }))
      .thenThrows('api_key_not_found');
  });

  it('grants a role once', () => {
    const granted = { type: 'RoleGranted', data: { userId, role: 'admin' } } as const;
    user
      .given([created])
      .when(command('GrantRole', { userId, role: 'admin' }))
      .then([granted]);
    user
      .given([created, granted])
      .when(command('GrantRole', { userId, role: 'admin' }))
      .then([]);
  });

  it('folds keys with when they were issued and revoked', () => {
    const at = (now: string, event: Omit<UserEvent, 'metadata'>): UserEvent =>
      ({ ...event, metadata: { ...metadata, now } }) as UserEvent;
    const state = fold(userDecider, [
      at('2026-01-01T00:00:00.000Z', created),
      at('2026-01-02T00:00:00.000Z', issued),
      at('2026-01-03T00:00:00.000Z', { type: 'ApiKeyRevoked', data: { userId, keyId } }),
    ]);
    expect(state).to.deep.include({ status: 'active', name: 'alice', roles: [], passwordHash: null });
    expect(state.status === 'active' && state.apiKeys).to.deep.equal([
      {
        keyId,
        secretHash: 'h1',
        issuedAt: '2026-01-02T00:00:00.000Z',
        revokedAt: '2026-01-03T00:00:00.000Z',
      },
    ]);
  });
});
