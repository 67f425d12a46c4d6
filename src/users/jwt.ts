import { readFileSync } from 'node:fs';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import type { JwtSettings } from './userSettings.js';

/** What a verified token says: who (the `sub`) and whether its roles claim names `admin`. */
export interface JwtIdentity {
  subject: string;
  admin: boolean;
}

/** A token that does not verify; `reason` is safe to show the client. */
export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError';
}

/** A JWKS that could not be fetched: the server's problem, not the client's. */
export class KeySetUnavailableError extends Error {
  override readonly name = 'KeySetUnavailableError';
}

// Asymmetric algorithms a JWKS may use; `none` and HS* with a public key are never accepted.
const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

function claimAt(payload: JWTPayload, path: string): unknown {
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function hasAdmin(roles: unknown): boolean {
  if (Array.isArray(roles)) return roles.includes('admin');
  // Some providers give roles as one space-separated string (like OAuth scopes).
  return typeof roles === 'string' && roles.split(/\s+/).includes('admin');
}

/**
 * Verifies JWT bearer tokens with `jose`: HS256 with a shared secret, or the keys of a JWKS (from a
 * URL, fetched and cached by jose, or from a file read at start-up). Signature, `exp`, `nbf`, and
 * `iss`/`aud` when configured are checked; `sub` is required.
 */
export function createJwtVerifier(settings: JwtSettings): (token: string) => Promise<JwtIdentity> {
  let key: Uint8Array | JWTVerifyGetKey;
  let algorithms: string[];
  if (settings.secret) {
    key = new TextEncoder().encode(settings.secret);
    algorithms = ['HS256'];
  } else if (settings.jwksUrl) {
    key = createRemoteJWKSet(new URL(settings.jwksUrl), { timeoutDuration: 5_000 });
    algorithms = ASYMMETRIC;
  } else {
    key = createLocalJWKSet(JSON.parse(readFileSync(settings.jwksFile!, 'utf8')) as JSONWebKeySet);
    algorithms = ASYMMETRIC;
  }
  const options = {
    algorithms,
    clockTolerance: 5,
    ...(settings.issuer ? { issuer: settings.issuer } : {}),
    ...(settings.audience ? { audience: settings.audience } : {}),
  };
  return async (token) => {
    let payload: JWTPayload;
    try {
      payload =
        typeof key === 'function'
          ? (await jwtVerify(token, key, options)).payload
          : (await jwtVerify(token, key, options)).payload;
    } catch (error) {
      if (
        error instanceof errors.JWKSTimeout ||
        (error instanceof Error && /fetch|ECONN|network|JSON Web Key Set HTTP/i.test(error.message))
      )
        throw new KeySetUnavailableError(`the JWKS could not be fetched: ${error.message}`);
      if (error instanceof errors.JWTExpired) throw new InvalidTokenError('The token has expired');
      if (error instanceof errors.JWTClaimValidationFailed)
        throw new InvalidTokenError(`The token's ${error.claim} claim is not accepted`);
      throw new InvalidTokenError('The token is malformed or its signature does not verify');
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0)
      throw new InvalidTokenError('The token has no sub claim');
    return { subject: payload.sub, admin: hasAdmin(claimAt(payload, settings.rolesClaim)) };
  };
}
