import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt cost: N = 2^14, r = 8, p = 1 (about 16 MB and 40–60 ms per hash on these machines). */
const SCRYPT = { N: 16_384, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

function derive(password: string, salt: Buffer, options: ScryptOptions, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, { ...options, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** A password hash that names its parameters and salt: `scrypt$N$r$p$<salt>$<hash>` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, SCRYPT, KEY_BYTES);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

/** A hash of a password nobody has, so that checking an unknown user costs what checking a known one does. */
let decoy: Promise<string> | null = null;

/**
 * True when `password` matches `stored` (compared in constant time). With `stored` null (no such
 * user, or no password set) the same work is done against a decoy and the answer is false, so the
 * time taken does not tell whether a user exists.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const hash = stored ?? (await (decoy ??= hashPassword(randomBytes(16).toString('hex'))));
  const [scheme, n, r, p, salt, key] = hash.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(
    password,
    Buffer.from(salt, 'base64url'),
    { N: Number(n), r: Number(r), p: Number(p) },
    expected.length,
  );
  return timingSafeEqual(actual, expected) && stored !== null;
}

/** Shortest password `users add --password-stdin` and login accept. */
export const MIN_PASSWORD_LENGTH = 8;

/** User ids are 16 hex digits; an API key id is its user's id followed by 12 more. */
const USER_ID = /^[0-9a-f]{16}$/;
const KEY_ID = /^([0-9a-f]{16})[0-9a-f]{12}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export const newUserId = (): string => randomBytes(8).toString('hex');
export const isUserId = (value: string): boolean => USER_ID.test(value);

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/**
 * A new API key for `userId`: the key id names its user (so checking a key reads that user's own
 * stream, the truth in every process at once), the secret is 256 random bits shown once.
 */
export function newApiKey(userId: string): { keyId: string; secret: string; secretHash: string } {
  const keyId = `${userId}${randomBytes(6).toString('hex')}`;
  const secret = randomBytes(32).toString('base64url');
  return { keyId, secret, secretHash: hashSecret(secret) };
}

/** `keyId:secret` split and checked for shape; null when it cannot be a key of this server. */
export function parseApiKey(value: string): { keyId: string; userId: string; secret: string } | null {
  const colon = value.indexOf(':');
  if (colon < 0) return null;
  const keyId = value.slice(0, colon);
  const secret = value.slice(colon + 1);
  const match = KEY_ID.exec(keyId);
  if (!match || !SECRET.test(secret)) return null;
  return { keyId, userId: match[1]!, secret };
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
