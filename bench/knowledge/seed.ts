/**
 * Writes documents into an embedded event log exactly as ingestion records an upload
 * (src/knowledge/ingest.ts, src/commands/aggregates.ts): `KeyReserved` on the source and the
 * content reservation streams, then `DocumentIngested` followed by one `ChunkStored` per chunk in
 * `document-<docId>`, with the metadata a command stamps. Parsing and embedding are left out: the
 * server's projections then find chunks whose vectors are in no cache, and embed every one.
 */
import { randomUUID } from 'node:crypto';
import { eventLogPath } from '../../src/adapters.js';
import { reservationStream } from '../../src/commands/reservation.js';
import { documentAggregate } from '../../src/commands/aggregates.js';
import type { ChunkStored, DocumentIngested, Reservation } from '../../src/domain/document/events.js';
import { chunkId } from '../../src/domain/document/events.js';
import { createSqliteEventStore } from '../../src/eventStore/sqliteEventStore.js';
import type { EventToAppend } from '../../src/eventStore/eventStore.js';
import { CONTENT_RESERVATION, SOURCE_RESERVATION, sha256 } from '../../src/knowledge/ingest.js';
import { contentHashOf } from '../../src/text/contentHash.js';
import { chunkText, type Corpus } from './corpus.js';

export interface SeedOptions {
  dataDir: string;
  corpus: Corpus;
  documents: number;
  chunksPerDocument: number;
  wordsPerChunk: number;
  /** Documents whose appends are issued together (they share group commits). */
  batch?: number;
}

export interface Seeded {
  chunks: number;
  events: number;
  textBytes: number;
  /** The last document's id and the text of its last chunk. */
  last: { docId: string; chunkId: string; text: string };
  /** Every chunk's id and content hash, in log order. */
  chunkHashes: Array<{ id: string; hash: string }>;
  /** Each document's topic words. */
  topics: string[][];
}

/** What one chunk's section looks like: ten chunks per `##` section under the document's title. */
const CHUNKS_PER_SECTION = 10;

export async function seedDocuments(options: SeedOptions): Promise<Seeded> {
  const store = createSqliteEventStore({ path: eventLogPath(options.dataDir) });
  const batch = options.batch ?? 50;
  const seeded: Seeded = {
    chunks: 0,
    events: 0,
    textBytes: 0,
    last: { docId: '', chunkId: '', text: '' },
    chunkHashes: [],
    topics: [],
  };
  try {
    for (let first = 0; first < options.documents; first += batch) {
      const appends: Array<Promise<unknown>> = [];
      for (let n = first; n < Math.min(options.documents, first + batch); n += 1) {
        const { streams, chunks } = documentEvents(n, options, seeded);
        seeded.chunks += chunks;
        for (const { stream, events } of streams) {
          seeded.events += events.length;
          appends.push(store.append(stream, events, { expectedVersion: 'no_stream' }));
        }
      }
      await Promise.all(appends);
    }
  } finally {
    await store.close();
  }
  return seeded;
}

function documentEvents(
  n: number,
  options: SeedOptions,
  seeded: Seeded,
): { streams: Array<{ stream: string; events: EventToAppend[] }>; chunks: number } {
  const { corpus } = options;
  const docId = randomUUID();
  const topic = Array.from({ length: 12 }, () => corpus.word(200));
  seeded.topics.push(topic);
  const title = `${topic.slice(0, 3).join(' ')} ${String(n + 1).padStart(4, '0')}`;
  const fileName = `doc-${String(n + 1).padStart(5, '0')}.md`;
  const section = 'uploaded';
  const source = `${section}/${fileName}`;
  // An upload by an anonymous caller (no API keys), as its worker task records it.
  const metadata = {
    now: new Date(Date.UTC(2026, 0, 1) + n * 60_000).toISOString(),
    actorId: 'anonymous',
    correlationId: randomUUID(),
  };

  const chunks: Array<ChunkStored['data']> = [];
  const markdown: string[] = [`# ${title}`];
  let heading = '';
  for (let index = 0; index < options.chunksPerDocument; index += 1) {
    if (index % CHUNKS_PER_SECTION === 0) {
      heading = `${corpus.word(50)} ${corpus.word(50)}`;
      markdown.push(`## ${heading}`);
    }
    const text = chunkText(corpus, topic, options.wordsPerChunk);
    markdown.push(text);
    chunks.push({
      docId,
      chunkId: chunkId(docId, index),
      index,
      text,
      contentHash: sha256(text),
      sectionPath: [title, heading],
      heading,
      headingLevel: 2,
      pageStart: 1,
      pageEnd: 1,
      wordCount: text.split(' ').length,
      language: 'en',
    });
  }
  const fullText = markdown.join('\n\n');
  const contentHash = contentHashOf(fullText);
  const reservations: Reservation[] = [
    { kind: SOURCE_RESERVATION, key: sha256(source) },
    { kind: CONTENT_RESERVATION, key: contentHash },
  ];
  const ingested: DocumentIngested['data'] = {
    taskId: null,
    collection: 'default',
    docId,
    source,
    sourceKind: 'upload',
    title,
    language: 'en',
    format: '.md',
    contentHash,
    sizeBytes: Buffer.byteLength(fullText),
    chunkCount: chunks.length,
    section,
    reservations,
  };
  for (const chunk of chunks) {
    seeded.textBytes += Buffer.byteLength(chunk.text);
    seeded.chunkHashes.push({ id: chunk.chunkId, hash: chunk.contentHash });
  }
  const lastChunk = chunks.at(-1)!;
  seeded.last = { docId, chunkId: lastChunk.chunkId, text: lastChunk.text };

  const reservation = ({ kind, key }: Reservation) => ({
    stream: reservationStream(kind, key),
    events: [{ type: 'KeyReserved', data: { kind, key, holder: docId }, metadata }],
  });
  return {
    streams: [
      ...reservations.map(reservation),
      {
        stream: documentAggregate.streamOf(docId),
        events: [
          { type: 'DocumentIngested', data: ingested, metadata },
          ...chunks.map((chunk) => ({ type: 'ChunkStored', data: chunk, metadata })),
        ],
      },
    ],
    chunks: chunks.length,
  };
}
