import { readFileSync } from 'node:fs';

export { parseContext as pdfContext } from '../parseContext.js';

const fixtures = new URL('../../fixtures/documents/pdf/', import.meta.url);

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(name, fixtures)));
}
