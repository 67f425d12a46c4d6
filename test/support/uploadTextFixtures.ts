import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { uniqueUpload } from './cluster.js';
import type { TestApp } from './testApp.js';

/** A text document of test/fixtures/documents/text. */
export const textFixture = (name: string): Promise<Buffer> =>
  readFile(join(import.meta.dirname, '..', 'fixtures', 'documents', 'text', name));

/**
 * Uploads each named text fixture through `POST /api/v1/upload`, one after another, expecting 200;
 * answers the ingestion results. In cluster mode each goes under a name and with a last line of its
 * own (see uniqueUpload), so that no copy another suite stored makes it a duplicate.
 */
export async function uploadTextFixtures(
  app: Pick<TestApp, 'http'>,
  ...names: string[]
): Promise<Array<Record<string, unknown>>> {
  const results: Array<Record<string, unknown>> = [];
  for (const name of names) {
    const upload = uniqueUpload(name, await textFixture(name));
    const response = await app.http
      .post('/api/v1/upload')
      .attach('file', upload.bytes, upload.name)
      .expect(200);
    results.push(response.body as Record<string, unknown>);
  }
  return results;
}
