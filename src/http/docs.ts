import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));

/** Only these files are served, from the npm packages: no path from a request reaches the file system. */
const ASSETS: Record<string, { path: string; type: string }> = {
  '/docs/swagger-ui.css': { path: join(swaggerDir, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  '/docs/swagger-ui-bundle.js': {
    path: join(swaggerDir, 'swagger-ui-bundle.js'),
    type: 'text/javascript; charset=utf-8',
  },
};

/**
 * A page of Swagger UI over `/openapi.json`. One docs UI serves both pages: `/docs` to try requests,
 * `/redoc` to read (every operation listed, no "Try it out"); ReDoc's package brought React, mobx and
 * styled-components into every install for the second page alone.
 */
const docsPage = (title: string, options: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Archivist API — ${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', ${options} });</script>
</body></html>`;

const TRY_PAGE = docsPage('Swagger UI', 'deepLinking: true');
const READ_PAGE = docsPage(
  'reference',
  "deepLinking: true, docExpansion: 'list', supportedSubmitMethods: [], defaultModelsExpandDepth: 2",
);

/** `/openapi.json`, `/docs` (try requests) and `/redoc` (read), entirely offline, added to `router`. */
export function mountDocs(router: Router, openapi: () => unknown): void {
  const cache = new Map<string, Buffer>();
  router.get('/openapi.json', (ctx) => {
    ctx.body = openapi();
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = TRY_PAGE;
  });
  router.get('/redoc', (ctx) => {
    ctx.type = 'html';
    ctx.body = READ_PAGE;
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
