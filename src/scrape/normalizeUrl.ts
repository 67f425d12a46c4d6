/** Query parameters that track a visit rather than name a page. */
const TRACKING = /^(utm_[a-z_]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmi|ref_src)$/i;

/**
 * The form of a URL duplicates are detected by: scheme and host lower-case (IDN as punycode, which
 * `URL` does), default port and fragment dropped, tracking parameters removed, the rest sorted, an
 * empty path as `/`, and a trailing slash dropped from other paths. Throws on what is not an
 * http(s) URL.
 */
export function normalizeUrl(raw: string): string {
  const url = new URL(raw.trim());
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`not an http(s) URL: ${raw}`);
  url.hash = '';
  url.username = '';
  url.password = '';
  const kept = [...url.searchParams].filter(([key]) => !TRACKING.test(key));
  kept.sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  url.search = new URLSearchParams(kept).toString();
  if (url.pathname.length > 1 && url.pathname.endsWith('/'))
    url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url.toString();
}
