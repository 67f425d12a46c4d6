import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A real document from a package registry, named after its path under node_modules. */
export interface Input {
  name: string;
  bytes: Buffer;
}

const root = join(import.meta.dirname, '..');

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Documents npm installed under node_modules whose name and size `accept`, in path order, each
 * content once and none of `skip`'s, up to `limitBytes` in all.
 */
export function registryDocuments(
  accept: (name: string, size: number) => boolean,
  limitBytes: number,
  skip: readonly Input[] = [],
): Input[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (accept(entry.name, statSync(path).size)) found.push(path);
    }
  };
  walk(join(root, 'node_modules'));
  const seen = new Set(skip.map((input) => sha256(input.bytes)));
  const inputs: Input[] = [];
  let total = 0;
  for (const path of found.sort()) {
    const bytes = readFileSync(path);
    const hash = sha256(bytes);
    if (seen.has(hash) || total + bytes.length > limitBytes) continue;
    seen.add(hash);
    total += bytes.length;
    inputs.push({ name: relative(join(root, 'node_modules'), path).replaceAll('/', '__'), bytes });
  }
  return inputs;
}

export const readmes = (limitBytes: number): Input[] =>
  registryDocuments((name, size) => name === 'README.md' && size > 2_048, limitBytes);
