import type { Event } from '../shared/index.js';
import { defineEvents } from '../shared/index.js';

/** Where a document came from: an uploaded file (by its upload path) or a web page (by its URL). */
export type SourceKind = 'upload' | 'url';

/** What every chunk event carries: the chunk's text, its place in the document, its content hash. */
export type ChunkData = {
  docId: string;
  /** `${docId}:${index}`: stable across re-ingestion, so a changed chunk replaces its predecessor. */
  chunkId: string;
  index: number;
  text: string;
  /** SHA-256 of the chunk text: unchanged chunks are skipped on re-ingestion, and vectors are cached by it. */
  contentHash: string;
  sectionPath: string[];
  heading: string;
  headingLevel: number;
  pageStart: number;
  pageEnd: number;
  wordCount: number;
  language: string;
};

/** The document's own facts, as the latest ingestion found them. */
export type DocumentFacts = {
  title: string;
  /** ISO 639-1 language, or 'unknown'. */
  language: string;
  /** Extension with the dot, as the documents pipeline detected it. */
  format: string;
  /** SHA-256 of the document's normalised text: how content duplicates are found. */
  contentHash: string;
  sizeBytes: number;
  chunkCount: number;
  /** Upload: the `section` form field (default `uploaded`); scrape: `web`. */
  section: string;
  /** The collection it belongs to (`default` unless given): who may see it (version 2 added it). */
  collection: string;
};

/** A uniqueness key the document holds (kind and SHA-256 of the value: content-free). */
export type Reservation = {
  kind: string;
  key: string;
};

/**
 * A file or web page was ingested for the first time; its chunks follow as `ChunkStored`. `taskId`:
 * the background task that ingested it, when one did (version 2 added it), so that deleting the
 * document can purge that task's record, which names the file and the title.
 */
export type DocumentIngested = Event<
  'DocumentIngested',
  DocumentFacts & {
    docId: string;
    source: string;
    sourceKind: SourceKind;
    reservations: Reservation[];
    taskId: string | null;
  }
>;
/** A chunk's text and place: a new chunk, or one that replaces the chunk of the same index. */
export type ChunkStored = Event<'ChunkStored', ChunkData>;
/** The document has fewer chunks than before: this one is gone. */
export type ChunkRemoved = Event<'ChunkRemoved', { docId: string; chunkId: string; index: number }>;
/**
 * The same source was ingested again (`skip_duplicates: false`): new facts; the chunk events that
 * follow carry only what changed.
 */
export type DocumentReingested = Event<
  'DocumentReingested',
  DocumentFacts & {
    docId: string;
    chunksAdded: number;
    chunksUpdated: number;
    chunksSkipped: number;
    reservations: Reservation[];
    /** As in `DocumentIngested` (version 2 added it). */
    taskId: string | null;
  }
>;
/**
 * The document is to be removed. Content-free and written outside the document's stream (which
 * the purge reactor then deletes): every read model, index and cache drops what it derived.
 * `reservations` are the hashed uniqueness keys it held, so they can be released; the chunk count
 * and hashes let indexes and the embedding cache drop what only this document used.
 */
export type DocumentDeleted = Event<
  'DocumentDeleted',
  {
    docId: string;
    stream: string;
    reservations: Reservation[];
    /** How many chunks it had (their ids are `${docId}:0…n-1`), and their content hashes. */
    chunkCount: number;
    chunkHashes: string[];
    /** The tasks that ingested it, whose records are purged with it (version 2 added them). */
    tasks: string[];
  }
>;

export type DocumentEvent =
  DocumentIngested | ChunkStored | ChunkRemoved | DocumentReingested | DocumentDeleted;

export const documentEvents = defineEvents<DocumentEvent>({
  // Version 1 did not say which task ingested the document, nor its collection (all were `default`).
  DocumentIngested: {
    version: 2,
    upcast: { 1: (data) => ({ ...data, taskId: null, collection: 'default' }) },
  },
  ChunkStored: {},
  ChunkRemoved: {},
  DocumentReingested: {
    version: 2,
    upcast: { 1: (data) => ({ ...data, taskId: null, collection: 'default' }) },
  },
  DocumentDeleted: { version: 2, upcast: { 1: (data) => ({ ...data, tasks: [] }) } },
});

export function documentStream(docId: string): string {
  return `document-${docId}`;
}

export function chunkId(docId: string, index: number): string {
  return `${docId}:${index}`;
}
