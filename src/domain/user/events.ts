import type { Event } from '../shared/index.js';
import { defineEvents } from '../shared/index.js';

/** The one role this build knows: administrators may read the full settings and manage others. */
export type Role = 'admin';

/** A user exists under a unique name (claimed by a reservation before this is appended). */
export type UserCreated = Event<'UserCreated', { userId: string; name: string }>;
/**
 * The user's password, as a self-describing scrypt hash with its own salt
 * (`scrypt$N$r$p$salt$hash`). The password itself is never recorded anywhere.
 */
export type PasswordSet = Event<'PasswordSet', { userId: string; passwordHash: string }>;
/**
 * An API key pair for `Authorization: token <keyId>:<secret>`. Only the SHA-256 of the secret is
 * kept: the secret is a random 256-bit value shown once, so a fast hash is as safe as a slow one.
 */
export type ApiKeyIssued = Event<'ApiKeyIssued', { userId: string; keyId: string; secretHash: string }>;
/** The key no longer authenticates anyone. */
export type ApiKeyRevoked = Event<'ApiKeyRevoked', { userId: string; keyId: string }>;
export type RoleGranted = Event<'RoleGranted', { userId: string; role: Role }>;

export type UserEvent = UserCreated | PasswordSet | ApiKeyIssued | ApiKeyRevoked | RoleGranted;

export const userEvents = defineEvents<UserEvent>({
  UserCreated: {},
  PasswordSet: {},
  ApiKeyIssued: {},
  ApiKeyRevoked: {},
  RoleGranted: {},
});
