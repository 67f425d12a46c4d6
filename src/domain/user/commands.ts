import type { Command } from '../shared/index.js';
import type { Role } from './events.js';

/** Creates the user; `admin` grants the administrator role in the same decision. */
export type CreateUser = Command<'CreateUser', { userId: string; name: string; admin: boolean }>;
/** Hashing happens before the command: the domain never sees a password. */
export type SetPassword = Command<'SetPassword', { userId: string; passwordHash: string }>;
export type IssueApiKey = Command<'IssueApiKey', { userId: string; keyId: string; secretHash: string }>;
export type RevokeApiKey = Command<'RevokeApiKey', { userId: string; keyId: string }>;
export type GrantRole = Command<'GrantRole', { userId: string; role: Role }>;

export type UserCommand = CreateUser | SetPassword | IssueApiKey | RevokeApiKey | GrantRole;
