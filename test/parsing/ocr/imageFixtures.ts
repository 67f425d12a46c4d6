import { readFileSync } from 'node:fs';

const folder = new URL('../../fixtures/documents/image/', import.meta.url);

/** A generated fixture (see scripts/fixtures/image.ts). */
export function imageFixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(name, folder)));
}

/** A source text the fixtures were rendered from. */
export function imageSource(name: string): string {
  return readFileSync(new URL(`src/${name}`, folder), 'utf8');
}
