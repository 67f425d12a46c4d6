import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const redocBundle = join(dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');

/** Only these files are served, from the npm packages: no path from a request reaches the file system. */
const ASSETS: Record<string, { path: string; type: string }> = {
  '/docs/swagger-ui.css': { path: join(swaggerDir, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  '/docs/swagger-ui-bundle.js': {
    path: join(swaggerDir, 'swagger-ui-bundle.js'),
    type: 'text/javascript; charset=utf-8',
  },
  '/redoc/redoc.standalone.js': { path: redocBundle, type: 'text/javascript; charset=utf-8' },
};

const SWAGGER_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Archivist API — Swagger UI</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });</script>
</body></html>`;

const REDOC_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Archivist API — ReDoc</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/openapi.json"></redoc>
<script src="/redoc/redoc.standalone.js"></script>
</body></html>`;

/** `/openapi.json`, `/docs` (Swagger UI) and `/redoc`, entirely offline, added to `router`. */
export function mountDocs(router: Router, openapi: () => unknown): void {
  const cache = new Map<string, Buffer>();
  router.get('/openapi.json', (ctx) => {
    ctx.body = openapi();
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = SWAGGER_PAGE;
  });
  router.get('/redoc', (ctx) => {
    ctx.type = 'html';
    ctx.body = REDOC_PAGE;
  });
  for (const [path, asset] of Object.entries(ASSETS)) {
    router.get(path, async (ctx) => {
      let content = cache.get(path);
      if (!content) {
        content = await readFile(asset.path);
        cache.set(path, content);
      }
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.type = asset.type;
      ctx.body = content;
    });
  }
}
