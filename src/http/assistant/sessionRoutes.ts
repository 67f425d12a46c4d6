import { clientKey, userKey, type LoginThrottle } from '../../users/loginThrottle.js';
import type { SessionStore } from '../../users/sessions.js';
import type { Users } from '../../users/users.js';
import { HttpError } from '../httpError.js';
import { defineRoute, type Route } from '../route.js';
import { assistantErrorSchema } from '../errorHandler.js';
import { challenge, clearSessionCookie, SESSION_COOKIE, SESSION_COOKIE_PATH } from './auth.js';
import { envelope, envelopeSchema } from './envelope.js';

export interface SessionRouteDeps {
  users: Users;
  sessions: SessionStore;
  cookieSecure: boolean;
  sessionTtlMs: number;
  jwtEnabled: boolean;
  /** Failed logins counted per user name and per client address. */
  throttle: LoginThrottle;
  maxFailures: number;
  maxFailuresPerClient: number;
}

const loginData = {
  type: 'object',
  required: ['user', 'admin', 'expires_at'],
  properties: {
    user: { type: 'string' },
    admin: { type: 'boolean' },
    expires_at: { type: 'string', format: 'date-time' },
  },
} as const;

/**
 * Frappe-style login and logout (`/api/method/login`, `/api/method/logout`): the session lives in
 * an HttpOnly, SameSite=Lax cookie `sid`, sent to the paths of both APIs (`/api`), so that the web
 * console calls the Retrieval API as the signed-in user too.
 */
export function sessionRoutes(deps: SessionRouteDeps): Route[] {
  const cookie = (sid: string, maxAgeSeconds: number): string =>
    `${SESSION_COOKIE}=${sid}; Path=${SESSION_COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${deps.cookieSecure ? '; Secure' : ''}`;
  return [
    defineRoute({
      method: 'post',
      path: '/login',
      operationId: 'login',
      summary: 'Log in with a user name and password',
      description:
        'Starts a session: the response sets the HttpOnly, SameSite=Lax cookie `sid` (`Path=/api`), which authenticates later calls of the Assistant API and, as that user, of the Retrieval API (when no credentials are in a header; requests that change something must then come from pages of this server: `Origin` or `Sec-Fetch-Site: same-origin`) until it expires (SESSION_TTL_MS) or `/api/method/logout`. Fields as JSON or as form fields (`usr`, `pwd`).',
      tags: ['Assistant: session'],
      public: true,
      body: {
        contentType: 'application/json',
        form: true,
        schema: {
          type: 'object',
          required: ['usr', 'pwd'],
          properties: {
            usr: { type: 'string', minLength: 1, maxLength: 128, description: 'User name' },
            pwd: { type: 'string', minLength: 1, maxLength: 1024, description: 'Password' },
          },
        },
      },
      responses: {
        200: { description: 'Logged in; the `sid` cookie is set', schema: envelopeSchema(loginData) },
        401: { description: 'Wrong user name or password', schema: assistantErrorSchema },
        429: {
          description:
            'Too many failed logins for this user name (LOGIN_MAX_FAILURES) or from this client (LOGIN_MAX_FAILURES_PER_CLIENT) within LOGIN_FAILURE_WINDOW_MS; the password was not checked. `Retry-After` says when to try again',
          schema: assistantErrorSchema,
        },
      },
      async handle({ body, log, koa }) {
        const keys = [
          { key: userKey(body.usr), maxFailures: deps.maxFailures },
          { key: clientKey(koa.ip), maxFailures: deps.maxFailuresPerClient },
        ];
        const waitMs = deps.throttle.retryAfterMs(keys);
        if (waitMs > 0) {
          const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
          log.warn({ event: 'login_throttled' }, 'login refused: too many failures');
          throw new HttpError(
            429,
            'too_many_login_failures',
            `Too many failed logins; retry in ${retryAfter} s`,
            [],
            { 'Retry-After': String(retryAfter) },
          );
        }
        const principal = await deps.users.checkPassword(body.usr, body.pwd);
        if (!principal?.userId) {
          deps.throttle.failed(keys);
          log.info({ event: 'login_failed' }, 'login refused');
          throw new HttpError(401, 'invalid_credentials', 'Wrong user name or password', [], {
            'WWW-Authenticate': challenge(deps.jwtEnabled),
          });
        }
        deps.throttle.succeeded(body.usr);
        const { sid, expiresAt } = await deps.sessions.create(principal.userId);
        log.info({ user: principal.name }, 'logged in');
        return {
          body: envelope({
            user: principal.name,
            admin: principal.admin,
            expires_at: new Date(expiresAt).toISOString(),
          }),
          headers: {
            'Set-Cookie': cookie(sid, Math.max(1, Math.floor(deps.sessionTtlMs / 1000))),
            'Cache-Control': 'no-store',
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/logout',
      operationId: 'logout',
      summary: 'End the login session',
      description: 'Ends the session of the `sid` cookie, if any, and removes the cookie. Always succeeds.',
      tags: ['Assistant: session'],
      public: true,
      responses: {
        200: {
          description: 'Logged out',
          schema: envelopeSchema({
            type: 'object',
            required: ['logged_out'],
            properties: { logged_out: { const: true } },
          }),
        },
      },
      async handle({ koa }) {
        const sid = koa.cookies.get(SESSION_COOKIE);
        if (sid) await deps.sessions.end(sid);
        return { body: envelope({ logged_out: true }), headers: { 'Set-Cookie': clearSessionCookie() } };
      },
    }),
  ];
}
