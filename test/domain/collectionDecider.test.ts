import { collectionDecider } from '../../src/domain/collection/decider.js';
import type { CollectionCommand } from '../../src/domain/collection/commands.js';
import type { AccessLevel } from '../../src/domain/collection/events.js';
import { spec } from '../../src/domain/shared/deciderSpec.js';
import type { Metadata } from '../../src/domain/shared/index.js';

const metadata: Metadata = { now: '2026-12-07T10:00:00.000Z', actorId: 'cli:root', correlationId: 'c1' };
const grant = (user: string, level: AccessLevel, collection = 'finance'): CollectionCommand => ({
  type: 'GrantCollectionAccess',
  data: { collection, user, level },
  metadata,
});
const revoke = (user: string): CollectionCommand => ({
  type: 'RevokeCollectionAccess',
  data: { collection: 'finance', user },
  metadata,
});
const granted = (user: string, level: AccessLevel) => ({
  type: 'CollectionAccessGranted' as const,
  data: { collection: 'finance', user, level },
});

describe('collection decider', () => {
  it('grants access; the same grant again is nothing to do, another level changes it', () => {
    spec(collectionDecider)
      .given([])
      .when(grant('alice', 'read'))
      .then([granted('alice', 'read')]);
    spec(collectionDecider)
      .given([granted('alice', 'read')])
      .when(grant('alice', 'read'))
      .then([]);
    spec(collectionDecider)
      .given([granted('alice', 'read')])
      .when(grant('alice', 'write'))
      .then([granted('alice', 'write')]);
  });

  it('revokes a grant, and refuses to revoke one that does not exist', () => {
    spec(collectionDecider)
      .given([granted('alice', 'write')])
      .when(revoke('alice'))
      .then([{ type: 'CollectionAccessRevoked', data: { collection: 'finance', user: 'alice' } }]);
    spec(collectionDecider)
      .given([granted('alice', 'write')])
      .when(revoke('bob'))
      .thenThrows('grant_not_found');
  });

  it('refuses a bad collection name, an empty user and an unknown level', () => {
    spec(collectionDecider)
      .given([])
      .when(grant('alice', 'read', 'Finance Team'))
      .thenThrows('invalid_collection');
    spec(collectionDecider).given([]).when(grant(' ', 'read')).thenThrows('invalid_user');
    spec(collectionDecider)
      .given([])
      .when(grant('alice', 'admin' as AccessLevel))
      .thenThrows('invalid_level');
  });
});
