import type { Context, Middleware } from 'koa';
import type { Reader } from '../../commands/context.js';
import { InvalidTokenError, KeySetUnavailableError, type JwtIdentity } from '../../users/jwt.js';
import type { SessionStore } from '../../users/sessions.js';
import { actorIdOf, type Principal, type Users } from '../../users/users.js';
import { HttpError, serviceUnavailable } from '../httpError.js';
import type { RequestState } from '../mountRoutes.js';
import { refuseCrossSiteCookie } from '../sameOrigin.js';

/** The login cookie. */
export const SESSION_COOKIE = 'sid';
/**
 * Where the cookie is sent: both APIs (the web console calls the Retrieval API as the signed-in
 * user), never the docs, the console's files or `/metrics`.
 */
export const SESSION_COOKIE_PATH = '/api';

export interface AssistantAuthDeps {
  users: Users;
  sessions: SessionStore;
  /** Null when JWT bearer tokens are not accepted (no JWT settings). */
  verifyJwt: ((token: string) => Promise<JwtIdentity>) | null;
}

type AssistantState = RequestState & { principal?: Principal };

/** The `WWW-Authenticate` challenges of the Assistant API: the schemes it takes in `Authorization`. */
export function challenge(jwt: boolean, bearerError?: string): string {
  const token = 'Token realm="archivist"';
  if (!jwt) return token;
  const bearer = bearerError
    ? `Bearer realm="archivist", error="invalid_token", error_description="${bearerError.replace(/"/g, "'")}"`
    : 'Bearer realm="archivist"';
  return `${token}, ${bearer}`;
}

/** A `Set-Cookie` value that removes the session cookie. */
export const clearSessionCookie = (): string =>
  `${SESSION_COOKIE}=; Path=${SESSION_COOKIE_PATH}; Max-Age=0; HttpOnly; SameSite=Lax`;

/**
 * Authenticates every Assistant API request by one of three methods, tried in this order:
 * `Authorization: token <keyId>:<secret>` (an API key pair), `Authorization: Bearer <JWT>` (when
 * JWT settings are configured), or the `sid` cookie of a login session. A request without valid
 * credentials is answered 401 with `WWW-Authenticate`, before routing: unknown endpoints too, so
 * nothing about the API's endpoints is learnt without credentials. The Retrieval API's `X-API-Key`
 * authenticates no one here: it names a service, not a user, and every assistant endpoint acts for
 * a user. The cookie does not act for another site's pages (403 `cross_site_request`, sameOrigin.ts).
 * The principal is left on `ctx.state.principal`; events record `user:<name>` as the actor.
 */
export function assistantAuth(deps: AssistantAuthDeps): Middleware {
  const jwt = deps.verifyJwt !== null;
  const unauthorized = (type: string, message: string, headers: Record<string, string> = {}): HttpError =>
    new HttpError(401, type, message, [], { 'WWW-Authenticate': challenge(jwt), ...headers });
  const fromAuthorization = authorizationCheck(deps);

  async function authenticate(ctx: Context): Promise<Principal> {
    const header = ctx.get('authorization').trim();
    if (header) return fromAuthorization(header);
    const sid = ctx.cookies.get(SESSION_COOKIE);
    if (sid) {
      const principal = await sessionPrincipal(deps, sid);
      if (!principal) {
        throw unauthorized('session_expired', 'The session has expired or ended: log in again', {
          'Set-Cookie': clearSessionCookie(),
        });
      }
      refuseCrossSiteCookie(ctx);
      return principal;
    }
    const hint = ctx.get('x-api-key')
      ? " (X-API-Key is the Retrieval API's key: it does not authenticate Assistant API calls)"
      : '';
    throw unauthorized(
      'authentication_required',
      `This endpoint needs a login session (POST /api/method/login), an API key pair (Authorization: token <key>:<secret>)${jwt ? ' or a bearer JWT' : ''}${hint}`,
    );
  }

  return async (ctx, next) => {
    const principal = await authenticate(ctx);
    const state = ctx.state as AssistantState;
    state.principal = principal;
    state.caller = { ...state.caller, actorId: actorIdOf(principal), reader: readerOf(principal) };
    await next();
  };
}

/** The user of a login session, while the session lasts and the user is active; null otherwise. */
export async function sessionPrincipal(
  deps: Pick<AssistantAuthDeps, 'users' | 'sessions'>,
  sid: string,
): Promise<Principal | null> {
  const session = await deps.sessions.find(sid);
  return session ? deps.users.sessionPrincipal(session.userId) : null;
}

/** What a principal reads of the knowledge base as: a user, an administrator or not. */
export const readerOf = (principal: Principal): Reader => ({
  kind: 'user',
  name: principal.name,
  admin: principal.admin,
});

/** The authenticated principal of an Assistant API request (the guard put it there). */
export function principalOf(ctx: Context): Principal {
  const principal = (ctx.state as AssistantState).principal;
  if (!principal) throw new HttpError(401, 'authentication_required', 'This endpoint needs credentials');
  return principal;
}

/** 403 unless the principal is an administrator. */
export function requireAdmin(principal: Principal, what: string): void {
  if (!principal.admin) throw new HttpError(403, 'forbidden', `Only administrators may ${what}`);
}

/**
 * The principal an `Authorization` header names: `token <keyId>:<secret>` or `Bearer <keyId>:<secret>`
 * (an API key pair) or `Bearer <JWT>` (when JWT settings are configured). Invalid credentials are a 401 with
 * `WWW-Authenticate`. Both APIs take it: the Assistant API for every request, the Retrieval API
 * beside its `X-API-Key` (a user's reads then see what that user may see).
 */
export function authorizationCheck(
  deps: Omit<AssistantAuthDeps, 'sessions'>,
): (header: string) => Promise<Principal> {
  const jwt = deps.verifyJwt !== null;
  const unauthorized = (type: string, message: string): HttpError =>
    new HttpError(401, type, message, [], { 'WWW-Authenticate': challenge(jwt) });
  return async function fromAuthorization(header: string): Promise<Principal> {
    const space = header.indexOf(' ');
    const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
    const value = space < 0 ? '' : header.slice(space + 1).trim();
    // OpenAI's clients send their key as a bearer token: a key pair there is a key pair (a JWT
    // never holds a colon).
    if (scheme === 'token' || (scheme === 'bearer' && value.includes(':'))) {
      const principal = await deps.users.checkApiKey(value);
      if (!principal) {
        throw unauthorized(
          'invalid_api_key',
          'The API key pair in Authorization is not valid (unknown, revoked, or a wrong secret)',
        );
      }
      return principal;
    }
    if (scheme === 'bearer') {
      if (!deps.verifyJwt) {
        throw unauthorized(
          'bearer_not_accepted',
          'This server accepts no bearer tokens (no JWT_SECRET, JWT_JWKS_URL or JWT_JWKS_FILE is configured)',
        );
      }
      let identity: JwtIdentity;
      try {
        identity = await deps.verifyJwt(value);
      } catch (error) {
        if (error instanceof InvalidTokenError) {
          throw new HttpError(401, 'invalid_token', error.message, [], {
            'WWW-Authenticate': challenge(true, error.message),
          });
        }
        if (error instanceof KeySetUnavailableError) {
          throw serviceUnavailable('The keys that sign tokens cannot be fetched; retry later');
        }
        throw error;
      }
      // `sub` names the user: a local user of that name keeps its roles; anyone else is known by the token alone.
      const local = await deps.users.byName(identity.subject);
      return local
        ? { ...local, admin: local.admin || identity.admin, via: 'jwt' }
        : { userId: null, name: identity.subject, admin: identity.admin, via: 'jwt' };
    }
    throw unauthorized(
      'unsupported_authorization',
      `Authorization must be "token <key>:<secret>"${jwt ? ' or "Bearer <JWT>"' : ''}`,
    );
  };
}
