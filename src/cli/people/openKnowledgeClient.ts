import type { Config } from '../../config.js';
import type { KnowledgeClient } from './knowledgeClient.js';

/** The environment variables the people's CLI reads besides the server's configuration. */
export const URL_VARIABLE = 'ARCHIVIST_URL';
export const KEY_VARIABLE = 'ARCHIVIST_KEY';

/**
 * The knowledge base a command works on: the server at `--url` (or ARCHIVIST_URL), with the key
 * from ARCHIVIST_KEY — never an argument, which anyone could read in the process list — or else
 * the local DATA_DIR in this process. Each adapter is loaded only when chosen: the local one
 * brings the whole runtime.
 */
export async function openKnowledgeClient(
  config: Config,
  url: string | undefined,
  options: { mustExist: boolean },
): Promise<KnowledgeClient> {
  const serverUrl = url ?? process.env[URL_VARIABLE];
  if (serverUrl) {
    const { createHttpKnowledgeClient } = await import('./httpKnowledgeClient.js');
    return createHttpKnowledgeClient({ url: serverUrl, key: process.env[KEY_VARIABLE] || undefined });
  }
  const { openLocalKnowledgeClient } = await import('./localKnowledgeClient.js');
  return openLocalKnowledgeClient(config, options);
}
