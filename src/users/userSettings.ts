import { resolve } from 'node:path';
import {
  ConfigError,
  defineSettings,
  flag,
  integer,
  list,
  optionalText,
  text,
  url,
  type Env,
} from '../configuration/variable.js';

const API_KEYS = list('API_KEYS', {
  default: '(empty)',
  meaning: 'Comma-separated keys accepted in `X-API-Key`. Empty: authentication off (development).',
});
const SESSION_TTL_MS = integer('SESSION_TTL_MS', {
  default: '86400000',
  min: 1_000,
  max: 31_536_000_000,
  meaning: 'How long an Assistant API login session (`POST /api/method/login`, cookie `sid`) lasts.',
});
const LOGIN_MAX_FAILURES = integer('LOGIN_MAX_FAILURES', {
  default: '5',
  min: 1,
  max: 1_000_000,
  meaning:
    'Failed logins (`POST /api/method/login`) for one user name within LOGIN_FAILURE_WINDOW_MS, after which further attempts for it are refused (429 with `Retry-After`, the password not checked) until the oldest failure leaves the window. Counted per API process.',
});
const LOGIN_MAX_FAILURES_PER_CLIENT = integer('LOGIN_MAX_FAILURES_PER_CLIENT', {
  default: '50',
  min: 1,
  max: 1_000_000,
  meaning:
    'Failed logins from one client address (any user names) within LOGIN_FAILURE_WINDOW_MS, after which its attempts are refused the same way.',
});
const LOGIN_FAILURE_WINDOW_MS = integer('LOGIN_FAILURE_WINDOW_MS', {
  default: '900000',
  min: 1_000,
  max: 86_400_000,
  meaning: 'The sliding window in which failed logins are counted.',
});
const SESSION_COOKIE_SECURE = flag('SESSION_COOKIE_SECURE', {
  default: 'false',
  meaning:
    'Mark the `sid` cookie `Secure` (sent over HTTPS only): set it when clients reach Archivist over HTTPS.',
});
const JWT_SECRET = optionalText(
  'JWT_SECRET',
  'Shared secret (at least 32 characters) of HS256-signed JWTs accepted as `Authorization: Bearer …` by the Assistant API. None of JWT_SECRET, JWT_JWKS_URL, JWT_JWKS_FILE: JWTs are not accepted.',
);
const JWT_JWKS_URL = url(
  'JWT_JWKS_URL',
  "URL of the identity provider's JWKS, whose keys sign accepted JWTs (instead of JWT_SECRET).",
);
const JWT_JWKS_FILE = optionalText(
  'JWT_JWKS_FILE',
  'A JWKS file whose public keys sign accepted JWTs (instead of JWT_SECRET or JWT_JWKS_URL).',
);
const JWT_ISSUER = optionalText('JWT_ISSUER', 'When set, a JWT must carry this `iss`.');
const JWT_AUDIENCE = optionalText('JWT_AUDIENCE', 'When set, a JWT must carry this `aud`.');
const JWT_ROLES_CLAIM = text('JWT_ROLES_CLAIM', {
  default: 'roles',
  meaning:
    'Claim of a JWT (a dotted path, e.g. `realm_access.roles`) listing its roles: `admin` among them makes an administrator. The user is the `sub` claim.',
});

/** Where JWT signatures are checked against: exactly one of a shared secret, a JWKS URL or a JWKS file. */
export interface JwtSettings {
  secret: string | null;
  jwksUrl: string | null;
  jwksFile: string | null;
  issuer: string | null;
  audience: string | null;
  /** Claim (a dotted path) holding the roles; `admin` among them makes an administrator. */
  rolesClaim: string;
}

/** Who may come in: API keys, login sessions and their throttling, JWT bearer tokens. */
export const userSettings = defineSettings(
  [
    API_KEYS,
    SESSION_TTL_MS,
    LOGIN_MAX_FAILURES,
    LOGIN_MAX_FAILURES_PER_CLIENT,
    LOGIN_FAILURE_WINDOW_MS,
    SESSION_COOKIE_SECURE,
    JWT_SECRET,
    JWT_JWKS_URL,
    JWT_JWKS_FILE,
    JWT_ISSUER,
    JWT_AUDIENCE,
    JWT_ROLES_CLAIM,
  ],
  (env) => ({
    apiKeys: API_KEYS.read(env),
    /** How long an Assistant API login session lasts. */
    sessionTtlMs: SESSION_TTL_MS.read(env),
    /** Failed logins allowed per user name, and per client address, within `loginFailureWindowMs`. */
    loginMaxFailures: LOGIN_MAX_FAILURES.read(env),
    loginMaxFailuresPerClient: LOGIN_MAX_FAILURES_PER_CLIENT.read(env),
    loginFailureWindowMs: LOGIN_FAILURE_WINDOW_MS.read(env),
    sessionCookieSecure: SESSION_COOKIE_SECURE.read(env),
    /** JWT bearer authentication of the Assistant API; null when off. */
    jwt: jwtSettings(env),
  }),
);

function jwtSettings(env: Env): JwtSettings | null {
  const secret = JWT_SECRET.read(env);
  const jwksUrl = JWT_JWKS_URL.read(env);
  const jwksFile = JWT_JWKS_FILE.read(env);
  const given = [secret && 'JWT_SECRET', jwksUrl && 'JWT_JWKS_URL', jwksFile && 'JWT_JWKS_FILE'].filter(
    Boolean,
  );
  if (given.length > 1) throw new ConfigError(`set one of ${given.join(', ')}, not several`);
  if (secret && secret.length < 32) throw new ConfigError('JWT_SECRET must be at least 32 characters');
  if (given.length === 0) return null;
  return {
    secret,
    jwksUrl,
    jwksFile: jwksFile ? resolve(jwksFile) : null,
    issuer: JWT_ISSUER.read(env),
    audience: JWT_AUDIENCE.read(env),
    rolesClaim: JWT_ROLES_CLAIM.read(env),
  };
}
