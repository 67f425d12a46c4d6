import type { Command } from '../shared/index.js';
import type { DocumentFacts, Reservation, SourceKind } from './events.js';

/** A chunk as the documents pipeline produced it, with its hash (computed by the caller: no I/O here). */
export type ChunkInput = {
  text: string;
  contentHash: string;
  sectionPath: string[];
  heading: string;
  headingLevel: number;
  pageStart: number;
  pageEnd: number;
  wordCount: number;
  language: string;
};

/**
 * Stores a parsed document. A new document records all its chunks; with `replace`, an existing one
 * is re-ingested: chunks whose index and hash are unchanged are skipped, others replaced, extra
 * ones removed. `reservations` are the uniqueness keys the caller claimed for it.
 */
export type IngestDocument = Command<
  'IngestDocument',
  DocumentFacts & {
    docId: string;
    source: string;
    sourceKind: SourceKind;
    chunks: ChunkInput[];
    replace: boolean;
    reservations: Reservation[];
    /** The background task that ingests it, when one does. */
    taskId: string | null;
  }
>;
export type DeleteDocument = Command<'DeleteDocument', { docId: string }>;

export type DocumentCommand = IngestDocument | DeleteDocument;
