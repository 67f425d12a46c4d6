import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import type { Context, Middleware } from 'koa';
import { HttpError } from './httpError.js';

/** Where the console is served; its build's `base` (console/vite.config.ts) names the same path. */
export const CONSOLE_PATH = '/console';
const ASSETS_PREFIX = `${CONSOLE_PATH}/assets/`;

/**
 * Scripts, styles, images, fonts and API calls from this server only: no inline script or style,
 * no other origin, no framing. The build emits no inline script (checked by the console tests).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * The package's root, the nearest folder above this module with a package.json: the server runs
 * compiled (dist/src/http) or from source under tsx (src/http), and both find the same root.
 */
function packageRoot(from: string): string {
  for (let folder = from; ; folder = dirname(folder)) {
    if (existsSync(join(folder, 'package.json'))) return folder;
    if (dirname(folder) === folder) return from;
  }
}

/** The built console, `dist/console` under the package root. */
export const defaultConsoleDir = (): string => join(packageRoot(import.meta.dirname), 'dist', 'console');

/** Whether the client would rather have a page than JSON: a browser, not an API client (`*∕*`, JSON). */
export const prefersHtml = (ctx: Context): boolean => ctx.accepts('json', 'html') === 'html';

/**
 * The file under `root` a request path names, or null when it is not a plain relative path inside
 * it: a `..` segment, a NUL byte, a backslash or an encoding that does not decode never reach the
 * file system.
 */
function fileOf(root: string, relative: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(relative);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  if (decoded.split('/').some((segment) => segment === '..' || segment === '.')) return null;
  const file = resolve(root, `.${sep}${decoded}`);
  return file.startsWith(`${root}${sep}`) ? file : null;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * The web console: the static build of console/ at `/console/`. Hashed assets are cached for a
 * year (their names change with their content); `index.html` is revalidated on every load so a new
 * build is picked up at once. Any other path under `/console/` is the single-page app's own route
 * and gets `index.html`. Without a build (tests from source) the console answers 503, saying how to
 * build it. Not part of the OpenAPI document: it is a page for people, not an API.
 */
export function serveConsole(root: string = defaultConsoleDir()): Middleware {
  const base = resolve(root);
  const index = join(base, 'index.html');
  // Hashed assets never change under their name; index.html is read afresh so a rebuild shows at once.
  const assets = new Map<string, Buffer>();
  const readAsset = async (file: string): Promise<Buffer> => {
    let content = assets.get(file);
    if (!content) {
      content = await readFile(file);
      assets.set(file, content);
    }
    return content;
  };

  return async (ctx, next) => {
    const path = ctx.path;
    if (path !== CONSOLE_PATH && !path.startsWith(`${CONSOLE_PATH}/`)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new HttpError(405, 'method_not_allowed', `${ctx.method} is not allowed on ${path}; use GET`, [], {
        Allow: 'GET, HEAD',
      });
    }
    if (path === CONSOLE_PATH) {
      ctx.status = 301;
      ctx.redirect(`${CONSOLE_PATH}/`);
      return;
    }
    if (!(await isFile(index))) {
      throw new HttpError(
        503,
        'console_not_built',
        `The web console is not built (no ${index}): run \`npm run build\``,
        [],
        { 'Retry-After': '60' },
      );
    }
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'same-origin');
    const file = fileOf(base, path.slice(CONSOLE_PATH.length + 1));
    if (path.startsWith(ASSETS_PREFIX)) {
      // An asset that is not there is a 404: answering index.html would hand a script a page.
      if (!file || !(await isFile(file))) throw new HttpError(404, 'not_found', `No console asset ${path}`);
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.type = CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
      ctx.body = await readAsset(file);
      return;
    }
    const served = file && extname(file) !== '' && (await isFile(file)) ? file : index;
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = CONTENT_TYPES[extname(served)] ?? 'application/octet-stream';
    ctx.body = await readFile(served);
  };
}
