import type { Context } from 'koa';
import { HttpError } from './httpError.js';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a request comes from a page of this server: its `Origin` names this host, or the browser
 * says `Sec-Fetch-Site: same-origin`. Browsers send one or both on every request that changes
 * something, and a page of another site can forge neither.
 */
export function fromSameOrigin(ctx: Context): boolean {
  if (ctx.get('sec-fetch-site') === 'same-origin') return true;
  const origin = ctx.get('origin');
  if (!origin || origin === 'null') return false;
  try {
    return new URL(origin).host === ctx.host;
  } catch {
    return false;
  }
}

/**
 * Whether a browser sent the request: browsers send `Sec-Fetch-Site` on every request (and `Origin`
 * on those that change something); HTTP clients and scripts send neither. The session cookie counts
 * only then: an API client that logged in keeps a cookie jar, and its requests stay judged by their
 * headers, as before the cookie reached the Retrieval API.
 */
export const sentByBrowser = (ctx: Context): boolean =>
  ctx.get('sec-fetch-site') !== '' || ctx.get('origin') !== '';

/**
 * Refuses (403) a request that changes something on the strength of a cookie alone unless it comes
 * from this server's own pages: SameSite=Lax already keeps the cookie off most cross-site requests,
 * and this check closes the rest (a sibling subdomain, an old browser). Reads are left alone.
 */
export function requireSameOriginForCookie(ctx: Context): void {
  if (SAFE_METHODS.has(ctx.method) || fromSameOrigin(ctx)) return;
  throw new HttpError(
    403,
    'cross_site_request',
    'A request authenticated by the session cookie must come from this server’s own pages (Origin or Sec-Fetch-Site: same-origin); API clients send credentials in a header instead',
  );
}

/**
 * Refuses (403) a request a browser sent from another site on the strength of the session cookie,
 * whatever its method: on the Assistant API even a GET acts (`stream_ai_response` runs a chat turn),
 * and SameSite=Lax still sends the cookie with another site's links. Another site is what the
 * browser says (`Sec-Fetch-Site: cross-site` or `same-site`) or an `Origin` of another host. A
 * person's own navigation (`Sec-Fetch-Site: none`) and requests without a browser's headers (API
 * clients) are left alone.
 */
export function refuseCrossSiteCookie(ctx: Context): void {
  const site = ctx.get('sec-fetch-site');
  if (site === 'same-origin' || site === 'none') return;
  const crossSite =
    site === 'cross-site' || site === 'same-site' || (ctx.get('origin') !== '' && !fromSameOrigin(ctx));
  if (!crossSite) return;
  throw new HttpError(
    403,
    'cross_site_request',
    'The session cookie does not act for pages of other sites; API clients send credentials in the Authorization header',
  );
}
