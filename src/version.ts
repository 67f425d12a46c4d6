import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (found from this file in src/ or dist/src/). */
export const VERSION: string = (() => {
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'archivist' && pkg.version) return pkg.version;
    } catch {
      // not at this level; try the next one
    }
  }
  return '0.0.0';
})();
