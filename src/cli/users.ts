import { existsSync } from 'node:fs';
import { eventLogPath, openEventStore } from '../adapters.js';
import { operator, runAdminCommand } from './adminCommand.js';
import { UsageError } from './usageError.js';
import { ConfigError, type Config } from '../config.js';
import { createUsers, type Users } from '../users/users.js';

export const USERS_USAGE = `  users add NAME        Create a user of the Assistant API. --admin makes an administrator;
                        --password-stdin reads its password (one line) from standard input.
  users key NAME        Issue an API key pair; prints key:secret once (for Authorization: token key:secret).
  users revoke NAME KEY Revoke the API key KEY (its key id) of user NAME.
  users password NAME   Set a user's password, read from standard input.
  users admin NAME      Make a user an administrator.
  users list            Print the users (names, roles, key ids; never secrets) as JSON.`;

export class UsersUsageError extends UsageError {}

/** One line from standard input, without its line ending (what `--password-stdin` reads). */
async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text.replace(/\r?\n$/, '');
}

function argument(value: string | undefined, what: string): string {
  if (!value) throw new UsersUsageError(`users: ${what} is missing`);
  return value;
}

/**
 * `archivist users …`. Works on a fresh install (`users add` creates the event log, so the first
 * administrator needs no server and no file edited) and beside a running server: a server checks
 * credentials against the users' own streams, so it honours a new key or a revocation at once.
 */
export async function usersCommand(
  config: Config,
  args: readonly string[],
  options: { admin?: boolean | undefined; 'password-stdin'?: boolean | undefined },
): Promise<number> {
  const [sub, name, key] = args;
  const known = ['add', 'key', 'revoke', 'password', 'admin', 'list'];
  if (!sub || !known.includes(sub)) {
    throw new UsersUsageError(`users takes one of ${known.join(', ')}${sub ? `; got ${sub}` : ''}`);
  }
  // Only `add` may create the event log: the other commands inspect data that must exist.
  if (sub !== 'add' && config.eventStore === 'file' && !existsSync(eventLogPath(config.dataDir))) {
    throw new ConfigError(
      `no Archivist data in ${config.dataDir} (no events.db there): check DATA_DIR, or add a user first`,
    );
  }
  const password = options['password-stdin'] || sub === 'password' ? await readPassword() : undefined;
  const eventStore = await openEventStore(config, { pollIntervalMs: null });
  const users = createUsers({ eventStore, clock: () => new Date() });
  return runAdminCommand(
    () => run(users, sub, name, key, { admin: options.admin ?? false, password }),
    eventStore,
  );
}

async function run(
  users: Users,
  sub: string,
  name: string | undefined,
  key: string | undefined,
  options: { admin: boolean; password: string | undefined },
): Promise<number> {
  const caller = operator();
  const print = (value: unknown): void => {
    process.stdout.write(`${JSON.stringify(value)}\n`);
  };
  switch (sub) {
    case 'add': {
      const { user } = await users.add(
        argument(name, 'NAME'),
        { admin: options.admin, ...(options.password === undefined ? {} : { password: options.password }) },
        caller,
      );
      print({ user: user.name, user_id: user.userId, admin: user.admin, password: user.hasPassword });
      return 0;
    }
    case 'key': {
      const issued = await users.issueKey(argument(name, 'NAME'), caller);
      // Alone on stdout, so that KEY=$(archivist users key NAME) works.
      process.stdout.write(`${issued.key}\n`);
      process.stderr.write(
        `API key ${issued.keyId} issued: the secret is shown this once. Use it as Authorization: token ${issued.keyId}:<secret>\n`,
      );
      return 0;
    }
    case 'revoke':
      await users.revokeKey(argument(name, 'NAME'), argument(key, 'KEY'), caller);
      print({ user: name, key_id: key, revoked: true });
      return 0;
    case 'password':
      await users.setPassword(argument(name, 'NAME'), options.password ?? '', caller);
      print({ user: name, password: true });
      return 0;
    case 'admin':
      await users.grantAdmin(argument(name, 'NAME'), caller);
      print({ user: name, admin: true });
      return 0;
    default: {
      const all = await users.list();
      process.stdout.write(
        `${JSON.stringify(
          all.map((user) => ({
            user: user.name,
            user_id: user.userId,
            admin: user.admin,
            password: user.hasPassword,
            created_at: user.createdAt,
            api_keys: user.apiKeys.map((apiKey) => ({
              key_id: apiKey.keyId,
              issued_at: apiKey.issuedAt,
              revoked_at: apiKey.revokedAt,
            })),
          })),
          null,
          2,
        )}\n`,
      );
      return 0;
    }
  }
}
