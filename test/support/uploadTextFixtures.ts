import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestApp } from './testApp.js';

/** A text document of test/fixtures/documents/text. */
export const textFixture = (name: string): Promise<Buffer> =>
  readFile(join(import.meta.dirname, '..', 'fixtures', 'documents', 'text', name));

/** Uploads each named text fixture through `POST /api/v1/upload`, one after another, expecting 200. */
export async function uploadTextFixtures(app: Pick<TestApp, 'http'>, ...names: string[]): Promise<void> {
  for (const name of names) {
    await app.http
      .post('/api/v1/upload')
      .attach('file', await textFixture(name), name)
      .expect(200);
  }
}
