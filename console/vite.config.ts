import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The web console's build: served by the API server at /console/ (src/http/console.ts) from
 * dist/console, hashed assets under /console/assets/. Preact's automatic JSX runtime through Vite's
 * own transformer (oxc), so no plugin is needed.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    // Module scripts only, as evergreen browsers run them; no inline script, for the strict CSP.
    target: 'es2022',
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
