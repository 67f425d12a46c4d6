import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Office parsers never OCR or describe (a later stage does): the context's ports fail loudly if one is called. */
export { parseContext as context } from '../parseContext.js';

const fixtureDir = fileURLToPath(new URL('../../fixtures/documents/office/', import.meta.url));

export function fixture(name: string): Uint8Array {
  return readFileSync(fixtureDir + name);
}
