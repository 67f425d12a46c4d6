/** Where a Milvus server is, as the SDK wants it, and as logs and `/health/stats` may show it. */
export interface MilvusEndpoint {
  /** `host:port` for the gRPC client. */
  address: string;
  ssl: boolean;
  /** `user:password` from the URL, or the API key given beside it; null without authentication. */
  token: string | null;
  /** The URL without credentials. */
  display: string;
}

const DEFAULT_PORT = 19530;

/**
 * Reads `MILVUS_URL`: `http://host:port`, `https://host:port` (TLS), or a bare `host:port` as the
 * Milvus tools write it; credentials in the URL become the token unless one is given. Throws a
 * plain Error naming what is wrong (the configuration turns it into its own error).
 */
export function parseMilvusUrl(raw: string, token: string | null = null): MilvusEndpoint {
  const text = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`not a Milvus address: ${JSON.stringify(raw)} (expected http://host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`unsupported scheme ${url.protocol} in ${JSON.stringify(raw)} (use http or https)`);
  }
  if (!url.hostname || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    throw new Error(`not a Milvus address: ${JSON.stringify(raw)} (expected http://host:port)`);
  }
  const ssl = url.protocol === 'https:';
  const port = url.port || String(ssl ? 443 : DEFAULT_PORT);
  const fromUrl = url.username
    ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
    : null;
  return {
    address: `${url.hostname}:${port}`,
    ssl,
    token: token || fromUrl,
    display: `${url.protocol}//${url.hostname}:${port}`,
  };
}
