import { createHash } from 'node:crypto';
import type { Caller, Clock } from '../commands/context.js';
import { metadataFor } from '../commands/context.js';
import { holderOf as keyHolder, reserve } from '../commands/reservation.js';
import { userAggregate } from '../commands/aggregates.js';
import { createCommandService } from '../commands/commandService.js';
import { InvalidStateError, NotFoundError, RuleViolationError } from '../domain/shared/index.js';
import type { UserState } from '../domain/user/decider.js';
import { userDecider } from '../domain/user/decider.js';
import type { EventStore } from '../eventStore/eventStore.js';
import type { ReadModels } from '../projections/readModels.js';
import { API_KEYS, USERS, type ApiKeyView, type UserView } from '../projections/usersProjection.js';
import {
  MIN_PASSWORD_LENGTH,
  hashPassword,
  isUserId,
  newApiKey,
  newUserId,
  parseApiKey,
  sameDigest,
  hashSecret,
  verifyPassword,
} from './credentials.js';

/** Who a request acts for, once authenticated. */
export interface Principal {
  /** Null for a JWT subject that is not a user of this server. */
  userId: string | null;
  /** The user name: what owns conversations, actions and sessions of the Assistant API. */
  name: string;
  admin: boolean;
  via: 'session' | 'api_key' | 'jwt';
}

/** The actor id events record for a principal. */
export const actorIdOf = (principal: Pick<Principal, 'name'>): string => `user:${principal.name}`;

/** A user as the CLI lists it (no hashes). */
export interface UserSummary {
  userId: string;
  name: string;
  admin: boolean;
  hasPassword: boolean;
  createdAt: string;
  apiKeys: Array<{ keyId: string; issuedAt: string; revokedAt: string | null }>;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;
const RESERVATION_KIND = 'user_name';

/** User names are unique whatever their case; the reservation key is a digest (stream names stay content-free). */
const nameKey = (name: string): string => createHash('sha256').update(name.toLowerCase()).digest('hex');

function assertName(name: string): void {
  if (!NAME.test(name)) {
    throw new RuleViolationError(
      'invalid_user_name',
      'A user name is 1–128 letters, digits and . _ @ + - (starting with a letter or digit)',
    );
  }
}

function assertPassword(password: string): void {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    throw new RuleViolationError(
      'weak_password',
      `A password has at least ${MIN_PASSWORD_LENGTH} characters`,
    );
  }
}

function summary(state: Extract<UserState, { status: 'active' }>): UserSummary {
  return {
    userId: state.userId,
    name: state.name,
    admin: state.roles.includes('admin'),
    hasPassword: state.passwordHash !== null,
    createdAt: state.createdAt,
    apiKeys: state.apiKeys.map(({ keyId, issuedAt, revokedAt }) => ({ keyId, issuedAt, revokedAt })),
  };
}

/**
 * Users: creation under a unique name, passwords, API keys, roles, and the checks of credentials.
 * Credentials are checked against the user's own stream (and names resolved through their
 * reservation), which every process sees as soon as it is written — a key the CLI issues or
 * revokes beside a running server counts at the server's next request. The `users` read model
 * answers the queries (lookups, listings over HTTP).
 */
export function createUsers(deps: { eventStore: EventStore; readModels?: ReadModels; clock: Clock }) {
  const { eventStore, clock } = deps;
  const commands = createCommandService(userAggregate, { eventStore, clock });

  /** The id of the user holding `name`, or null; a claim left by a creation that crashed counts too. */
  const holderOf = (name: string): Promise<string | null> =>
    keyHolder(eventStore, RESERVATION_KIND, nameKey(name));

  async function activeState(userId: string): Promise<Extract<UserState, { status: 'active' }> | null> {
    const state = (await commands.read(userId)).state;
    return state.status === 'active' ? state : null;
  }

  async function require(name: string): Promise<Extract<UserState, { status: 'active' }>> {
    const userId = await holderOf(name);
    const state = userId ? await activeState(userId) : null;
    if (!state) throw new NotFoundError('user_not_found', `No user named ${name}`);
    return state;
  }

  const principal = (state: Extract<UserState, { status: 'active' }>, via: Principal['via']): Principal => ({
    userId: state.userId,
    name: state.name,
    admin: state.roles.includes('admin'),
    via,
  });

  return {
    /**
     * Creates a user. The name is claimed first (one user per name, whatever its case); a claim left
     * by a creation that crashed before its events were written is taken over.
     */
    async add(
      name: string,
      options: { admin?: boolean; password?: string },
      caller: Caller,
    ): Promise<{ user: UserSummary; position: number }> {
      assertName(name);
      if (options.password !== undefined) assertPassword(options.password);
      const passwordHash = options.password === undefined ? null : await hashPassword(options.password);
      let userId = newUserId();
      const claim = await reserve(
        eventStore,
        RESERVATION_KIND,
        nameKey(name),
        userId,
        metadataFor(caller, clock),
      );
      if (!claim.reserved) {
        if (await activeState(claim.holder)) {
          throw new InvalidStateError('user_exists', `A user named ${name} exists already`);
        }
        userId = claim.holder;
      }
      let outcome = await commands.execute(
        'CreateUser',
        { userId, name, admin: options.admin ?? false },
        caller,
      );
      if (passwordHash) outcome = await commands.execute('SetPassword', { userId, passwordHash }, caller);
      if (outcome.state.status !== 'active') throw new Error(`user ${userId} was not created`);
      return { user: summary(outcome.state), position: outcome.position };
    },

    async setPassword(name: string, password: string, caller: Caller): Promise<{ position: number }> {
      assertPassword(password);
      const user = await require(name);
      const outcome = await commands.execute(
        'SetPassword',
        { userId: user.userId, passwordHash: await hashPassword(password) },
        caller,
      );
      return { position: outcome.position };
    },

    async grantAdmin(name: string, caller: Caller): Promise<{ position: number }> {
      const user = await require(name);
      return {
        position: (await commands.execute('GrantRole', { userId: user.userId, role: 'admin' }, caller))
          .position,
      };
    },

    /** A new API key for the user; `key` (`keyId:secret`) is shown once and never again. */
    async issueKey(name: string, caller: Caller): Promise<{ keyId: string; key: string; position: number }> {
      const user = await require(name);
      const { keyId, secret, secretHash } = newApiKey(user.userId);
      const outcome = await commands.execute(
        'IssueApiKey',
        { userId: user.userId, keyId, secretHash },
        caller,
      );
      return { keyId, key: `${keyId}:${secret}`, position: outcome.position };
    },

    async revokeKey(name: string, keyId: string, caller: Caller): Promise<{ position: number }> {
      const user = await require(name);
      return {
        position: (await commands.execute('RevokeApiKey', { userId: user.userId, keyId }, caller)).position,
      };
    },

    /** Every user, folded from the log (what the CLI lists: it runs no projections). */
    async list(): Promise<UserSummary[]> {
      const recorded = await eventStore.readAll({
        filter: { streamPrefixes: [`${userAggregate.category}-`] },
      });
      const states = new Map<string, UserState>();
      for (const event of recorded) {
        const decoded = userAggregate.events.decode(event);
        const before = states.get(event.streamName) ?? userDecider.initialState();
        states.set(event.streamName, userDecider.evolve(before, decoded));
      }
      return [...states.values()].flatMap((state) => (state.status === 'active' ? [summary(state)] : []));
    },

    /** The principal for a user name and password; null when either is wrong (same time either way). */
    async checkPassword(name: string, password: string): Promise<Principal | null> {
      const userId = NAME.test(name) ? await holderOf(name) : null;
      const state = userId ? await activeState(userId) : null;
      const matches = await verifyPassword(password, state?.passwordHash ?? null);
      return matches && state ? principal(state, 'session') : null;
    },

    /** The principal for `keyId:secret`; null for a malformed, unknown, revoked or wrong key. */
    async checkApiKey(pair: string): Promise<Principal | null> {
      const parsed = parseApiKey(pair);
      if (!parsed) return null;
      const state = await activeState(parsed.userId);
      const key = state?.apiKeys.find((candidate) => candidate.keyId === parsed.keyId);
      const presented = hashSecret(parsed.secret);
      // Compared in constant time even when there is no such key, against a digest of nothing.
      const matches = sameDigest(presented, key?.secretHash ?? hashSecret(''));
      return state && key && key.revokedAt === null && matches ? principal(state, 'api_key') : null;
    },

    /** The principal of a session's user (who may have gained a role since logging in). */
    async sessionPrincipal(userId: string): Promise<Principal | null> {
      if (!isUserId(userId)) return null;
      const state = await activeState(userId);
      return state ? principal(state, 'session') : null;
    },

    /** The local user of this name (case-insensitive), if any: for JWT subjects. */
    async byName(name: string): Promise<Principal | null> {
      if (!NAME.test(name)) return null;
      const userId = await holderOf(name);
      const state = userId ? await activeState(userId) : null;
      return state ? principal(state, 'jwt') : null;
    },

    /** Read-model queries (eventually consistent, for listings and lookups over HTTP). */
    views: {
      byId: async (userId: string): Promise<UserView | null> =>
        (await deps.readModels?.get<UserView>(USERS, userId)) ?? null,
      byName: async (name: string): Promise<UserView | null> =>
        (
          await deps.readModels?.find<UserView>(USERS, { filter: { nameKey: name.toLowerCase() }, limit: 1 })
        )?.[0] ?? null,
      byKeyId: async (keyId: string): Promise<ApiKeyView | null> =>
        (await deps.readModels?.get<ApiKeyView>(API_KEYS, keyId)) ?? null,
    },
  };
}

export type Users = ReturnType<typeof createUsers>;
