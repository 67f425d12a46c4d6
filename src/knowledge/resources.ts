import type { IngestionOutcome } from './ingest.js';

/** The spec's ingestion result (upload: `filename`; scrape: `url`), plus the stored document's id. */
export function ingestionResource(
  outcome: IngestionOutcome,
  subject: { filename: string } | { url: string },
): Record<string, unknown> {
  return {
    success: outcome.success,
    ...subject,
    title: outcome.title,
    doc_id: outcome.docId,
    chunks_added: outcome.chunksAdded,
    chunks_updated: outcome.chunksUpdated,
    chunks_skipped: outcome.chunksSkipped,
    error: outcome.error,
    is_duplicate: outcome.isDuplicate,
    duplicate_type: outcome.duplicateType,
    existing_doc_id: outcome.existingDocId,
    existing_doc_title: outcome.existingDocTitle,
    duplicate_message: outcome.duplicateMessage,
    timings_ms: outcome.timings,
  };
}
