import { documentEvents } from '../domain/document/events.js';
import type { Projection } from './projection.js';

export const DOCUMENTS = 'documents';
export const CHUNKS = 'chunks';
export const KNOWLEDGE = 'knowledge';

/** A stored document as queries see it (its text is its chunks', in order). */
export type DocumentView = {
  id: string;
  title: string;
  source: string;
  sourceKind: 'upload' | 'url';
  section: string;
  /** Who may see it: see knowledge/access.ts. */
  collection: string;
  language: string;
  format: string;
  contentHash: string;
  sizeBytes: number;
  chunkCount: number;
  createdAt: string;
  updatedAt: string;
  /** Global position of `DocumentIngested`: orders documents strictly. */
  sequence: number;
};

/** A chunk as retrieval sees it; `headings` (the section path joined) is searched with the text. */
export type ChunkView = {
  id: string;
  docId: string;
  index: number;
  text: string;
  headings: string;
  sectionPath: string[];
  heading: string;
  headingLevel: number;
  pageStart: number;
  pageEnd: number;
  wordCount: number;
  language: string;
  contentHash: string;
};

/**
 * Documents and their chunks. The chunks collection is also the lexical index: its text and section
 * headings are full-text indexed (SQLite FTS5 with BM25 and English stemming; MongoDB text search),
 * through the read store's normaliser (Arabic letter variants, diacritics).
 */
export const knowledgeProjection: Projection = {
  name: KNOWLEDGE,
  // 2: chunks are indexed anew — the normaliser folds ؤ/ئ, and the MongoDB read store stores stems.
  // 3: documents carry their collection.
  version: 3,
  handles: documentEvents.types,
  collections: [
    {
      name: DOCUMENTS,
      indexes: ['source', 'section', 'collection', 'language', 'title', 'sequence', 'contentHash'],
    },
    { name: CHUNKS, indexes: ['docId', 'contentHash'], textFields: ['text', 'headings'], searchHot: true },
  ],
  async apply(recorded, view) {
    const event = documentEvents.decode(recorded);
    const now = recorded.metadata.now;
    switch (event.type) {
      case 'DocumentIngested': {
        const { docId, reservations: _reservations, taskId: _taskId, ...facts } = event.data;
        const doc: DocumentView = {
          id: docId,
          ...facts,
          createdAt: now,
          updatedAt: now,
          sequence: recorded.position,
        };
        view.put(DOCUMENTS, doc);
        return;
      }
      case 'DocumentReingested': {
        const { title, language, format, contentHash, sizeBytes, chunkCount, section, collection } =
          event.data;
        return view.patch(DOCUMENTS, event.data.docId, {
          collection,
          title,
          language,
          format,
          contentHash,
          sizeBytes,
          chunkCount,
          section,
          updatedAt: now,
        });
      }
      case 'ChunkStored': {
        const { chunkId, ...chunk } = event.data;
        const doc: ChunkView = { id: chunkId, ...chunk, headings: chunk.sectionPath.join(' > ') };
        view.put(CHUNKS, doc);
        return;
      }
      case 'ChunkRemoved':
        view.delete(CHUNKS, event.data.chunkId);
        return;
      case 'DocumentDeleted':
        view.delete(DOCUMENTS, event.data.docId);
        view.deleteWhere(CHUNKS, { docId: event.data.docId });
        return;
    }
  },
};
