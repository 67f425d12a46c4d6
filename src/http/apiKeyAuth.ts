import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { HttpError } from './httpError.js';
import type { Reader } from '../commands/context.js';
import type { RequestState } from './mountRoutes.js';
import { clearSessionCookie, SESSION_COOKIE } from './assistant/auth.js';
import { requireSameOriginForCookie, sentByBrowser } from './sameOrigin.js';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** A user's credentials in `Authorization`, checked as the Assistant API checks them. */
export interface UserCredentials {
  check(header: string): Promise<{ actorId: string; reader: Reader }>;
  /** The user of a login session's `sid` cookie; null when it has expired or ended. */
  session(sid: string): Promise<{ actorId: string; reader: Reader } | null>;
}

/**
 * `X-API-Key` authentication as the Retrieval API specifies: no key → 401, a key that is not
 * configured → 403, and no check at all when no keys are configured (development mode). Keys are
 * compared as SHA-256 digests in constant time; the caller becomes `api-key:<first 8 hex of digest>`
 * so logs and events name the key without revealing it. An `X-API-Key` names a service, which sees
 * every collection. Additively, `Authorization: token key:secret` or a bearer JWT names a user (as on
 * the Assistant API): the request then reads as that user, who sees the collections open to
 * everyone and those granted to them (knowledge/access.ts). So does the login session's `sid`
 * cookie on a browser's request with no credentials in a header (the web console), for requests that
 * change something only from this server's own pages (sameOrigin.ts).
 */
export function apiKeyAuth(keys: readonly string[], users?: UserCredentials): Middleware {
  const accepted = keys.map(digest);
  return async (ctx, next) => {
    const authorization = ctx.get('authorization').trim();
    if (users && authorization && !ctx.get('x-api-key')) {
      const user = await users.check(authorization);
      const state = ctx.state as RequestState;
      state.caller = { ...state.caller, ...user };
      return next();
    }
    const sid =
      users && !authorization && !ctx.get('x-api-key') && sentByBrowser(ctx)
        ? ctx.cookies.get(SESSION_COOKIE)
        : undefined;
    if (users && sid) {
      const user = await users.session(sid);
      if (!user) {
        throw new HttpError(401, 'session_expired', 'The session has expired or ended: log in again', [], {
          'Set-Cookie': clearSessionCookie(),
        });
      }
      requireSameOriginForCookie(ctx);
      const state = ctx.state as RequestState;
      state.caller = { ...state.caller, ...user };
      return next();
    }
    if (accepted.length === 0) return next();
    const presented = ctx.get('x-api-key');
    if (!presented) {
      throw new HttpError(
        401,
        'missing_api_key',
        'This endpoint needs an API key in the X-API-Key header',
        [],
        { 'WWW-Authenticate': 'ApiKey header="X-API-Key"' },
      );
    }
    const candidate = digest(presented);
    if (!accepted.some((key) => timingSafeEqual(key, candidate))) {
      throw new HttpError(403, 'invalid_api_key', 'The API key in X-API-Key is not valid');
    }
    const state = ctx.state as RequestState;
    state.caller = { ...state.caller, actorId: `api-key:${candidate.toString('hex').slice(0, 8)}` };
    await next();
  };
}

/**
 * Runs `authenticate` for every path under a `protect` prefix except those under an `exempt` one
 * (a prefix matches the path itself and everything below it).
 */
export function guardPrefixes(
  authenticate: Middleware,
  prefixes: { protect: readonly string[]; exempt: readonly string[] },
): Middleware {
  const under = (path: string, prefix: string): boolean =>
    path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
  return (ctx, next) => {
    const path = ctx.path;
    const guarded =
      prefixes.protect.some((prefix) => under(path, prefix)) &&
      !prefixes.exempt.some((prefix) => under(path, prefix));
    return guarded ? authenticate(ctx, next) : next();
  };
}
