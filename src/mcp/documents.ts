import { z } from 'zod';
import type { Caller } from '../commands/context.js';
import { documentSummary } from '../knowledge/documentSummary.js';
import { DOCUMENTS, type DocumentView } from '../projections/knowledgeProjection.js';
import { documentUri, type McpDeps } from './mcpContext.js';

/** A document's fields as the tools give them: the Retrieval API's metadata, its id and its URI. */
export const documentShape = {
  doc_id: z.string(),
  uri: z.string().describe('The document as an MCP resource (its text)'),
  title: z.string(),
  source: z.string().describe('Upload path (<section>/<file name>) or URL'),
  section: z.string(),
  collection: z.string(),
  language: z.string(),
  format: z.string(),
  chunk_count: z.number().int(),
  size_bytes: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
};

export type DocumentFields = z.infer<z.ZodObject<typeof documentShape>>;

export const documentFields = (doc: DocumentView): DocumentFields => ({
  doc_id: doc.id,
  uri: documentUri(doc.id),
  ...documentSummary(doc),
});

/** A page of the documents `caller` may see, newest first, and how many there are in all. */
export async function visibleDocuments(
  deps: McpDeps,
  caller: Caller,
  page: { skip: number; limit: number },
): Promise<{ documents: DocumentView[]; total: number }> {
  const filter = await deps.library.visible(caller);
  const [documents, total] = await Promise.all([
    deps.readModels.find<DocumentView>(DOCUMENTS, {
      filter,
      sort: [['sequence', -1]],
      skip: page.skip,
      limit: page.limit,
    }),
    deps.readModels.count(DOCUMENTS, filter),
  ]);
  return { documents, total };
}
