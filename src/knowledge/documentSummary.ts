import type { DocumentView } from '../projections/knowledgeProjection.js';

/** A document's metadata as the APIs show it (snake_case): `/documents/{id}` and the document tools. */
export function documentSummary(doc: DocumentView) {
  return {
    title: doc.title,
    source: doc.source,
    section: doc.section,
    collection: doc.collection,
    language: doc.language,
    format: doc.format,
    chunk_count: doc.chunkCount,
    size_bytes: doc.sizeBytes,
    created_at: doc.createdAt,
    updated_at: doc.updatedAt,
  };
}
