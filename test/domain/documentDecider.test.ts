import type { ChunkInput, DocumentCommand } from '../../src/domain/document/commands.js';
import { documentDecider } from '../../src/domain/document/decider.js';
import type { DocumentEvent } from '../../src/domain/document/events.js';
import { spec } from '../../src/domain/shared/deciderSpec.js';
import type { EventDraft, Metadata } from '../../src/domain/shared/index.js';

const metadata: Metadata = { now: '2026-11-24T10:00:00.000Z', actorId: 'user-1', correlationId: 'corr-1' };
const docId = 'd1';
const chunk = (text: string, index = 0): ChunkInput => ({
  text,
  contentHash: `hash-${text}`,
  sectionPath: ['Guide'],
  heading: 'Guide',
  headingLevel: 1,
  pageStart: index + 1,
  pageEnd: index + 1,
  wordCount: 2,
  language: 'en',
});
const facts = {
  title: 'Guide',
  language: 'en',
  format: '.md',
  contentHash: 'doc-hash',
  sizeBytes: 100,
  section: 'uploaded',
  collection: 'default',
};
const reservations = [{ kind: 'doc_source', key: 'k1' }];
const ingest = (
  chunks: ChunkInput[],
  replace = false,
  taskId: string | null = 'task-1',
): DocumentCommand => ({
  type: 'IngestDocument',
  data: {
    docId,
    source: 'uploaded/guide.md',
    sourceKind: 'upload',
    ...facts,
    chunkCount: chunks.length,
    chunks,
    replace,
    reservations,
    taskId,
  },
  metadata,
});
const stored = (input: ChunkInput, index: number): EventDraft<DocumentEvent> => ({
  type: 'ChunkStored',
  data: { docId, chunkId: `${docId}:${index}`, index, ...input },
});
const ingested: EventDraft<DocumentEvent> = {
  type: 'DocumentIngested',
  data: {
    docId,
    source: 'uploaded/guide.md',
    sourceKind: 'upload',
    ...facts,
    chunkCount: 2,
    reservations,
    taskId: 'task-1',
  },
};
const history = [ingested, stored(chunk('alpha one'), 0), stored(chunk('beta two', 1), 1)];

describe('document decider', () => {
  it('records a new document and each of its chunks', () => {
    spec(documentDecider)
      .given([])
      .when(ingest([chunk('alpha one'), chunk('beta two', 1)]))
      .then(history);
  });

  it('refuses to ingest over an existing document unless asked to replace it', () => {
    spec(documentDecider)
      .given(history)
      .when(ingest([chunk('alpha one')]))
      .thenThrows('document_exists');
  });

  it('re-ingests by chunk hash: unchanged chunks skipped, changed replaced, extra ones removed', () => {
    spec(documentDecider)
      .given([...history, stored(chunk('gamma three', 2), 2)])
      .when(ingest([chunk('alpha one'), chunk('beta changed', 1)], true, 'task-2'))
      .then([
        {
          type: 'DocumentReingested',
          data: {
            docId,
            ...facts,
            chunkCount: 2,
            chunksAdded: 0,
            chunksUpdated: 1,
            chunksSkipped: 1,
            reservations,
            taskId: 'task-2',
          },
        },
        stored(chunk('beta changed', 1), 1),
        { type: 'ChunkRemoved', data: { docId, chunkId: `${docId}:2`, index: 2 } },
      ]);
  });

  it('counts chunks beyond the old end as added on re-ingestion', () => {
    spec(documentDecider)
      .given(history)
      .when(ingest([chunk('alpha one'), chunk('beta two', 1), chunk('delta four', 2)], true, null))
      .then([
        {
          type: 'DocumentReingested',
          data: {
            docId,
            ...facts,
            chunkCount: 3,
            chunksAdded: 1,
            chunksUpdated: 0,
            chunksSkipped: 2,
            reservations,
            taskId: null,
          },
        },
        stored(chunk('delta four', 2), 2),
      ]);
  });

  it('deletes with a content-free record naming its keys and chunk hashes', () => {
    spec(documentDecider)
      .given(history)
      .when({ type: 'DeleteDocument', data: { docId }, metadata })
      .then([
        {
          type: 'DocumentDeleted',
          data: {
            docId,
            stream: 'document-d1',
            reservations,
            chunkCount: 2,
            chunkHashes: ['hash-alpha one', 'hash-beta two'],
            tasks: ['task-1'],
          },
        },
      ]);
  });

  it('names on deletion every task that ingested the document, for their records to be purged', () => {
    const reingested: EventDraft<DocumentEvent> = {
      type: 'DocumentReingested',
      data: {
        docId,
        ...facts,
        chunkCount: 2,
        chunksAdded: 0,
        chunksUpdated: 0,
        chunksSkipped: 2,
        reservations,
        taskId: 'task-2',
      },
    };
    const byHand: EventDraft<DocumentEvent> = { ...reingested, data: { ...reingested.data, taskId: null } };
    spec(documentDecider)
      .given([...history, reingested, byHand, reingested])
      .when({ type: 'DeleteDocument', data: { docId }, metadata })
      .then([
        {
          type: 'DocumentDeleted',
          data: {
            docId,
            stream: 'document-d1',
            reservations,
            chunkCount: 2,
            chunkHashes: ['hash-alpha one', 'hash-beta two'],
            tasks: ['task-1', 'task-2'],
          },
        },
      ]);
  });

  it('answers document_not_found for a document that does not exist', () => {
    spec(documentDecider)
      .given([])
      .when({ type: 'DeleteDocument', data: { docId }, metadata })
      .thenThrows('document_not_found');
  });
});
