import type { Decider, EventDraft } from '../shared/index.js';
import { InvalidStateError, NotFoundError } from '../shared/index.js';
import type { ChunkInput, DocumentCommand, IngestDocument } from './commands.js';
import type { DocumentEvent, DocumentFacts, Reservation, SourceKind } from './events.js';
import { chunkId, documentStream } from './events.js';

export type DocumentState =
  | { status: 'none' }
  | (DocumentFacts & {
      status: 'active';
      docId: string;
      source: string;
      sourceKind: SourceKind;
      /** Content hash of each chunk, by index. */
      chunkHashes: string[];
      reservations: Reservation[];
      /** The tasks that ingested it, first to last. */
      tasks: string[];
      /** When it was first ingested and last changed (the events' metadata). */
      createdAt: string;
      updatedAt: string;
    });

type Draft = EventDraft<DocumentEvent>;

function chunkEvent(docId: string, index: number, chunk: ChunkInput): Draft {
  return { type: 'ChunkStored', data: { docId, chunkId: chunkId(docId, index), index, ...chunk } };
}

function facts(data: IngestDocument['data']): DocumentFacts {
  const { title, language, format, contentHash, sizeBytes, section, collection } = data;
  return {
    title,
    language,
    format,
    contentHash,
    sizeBytes,
    section,
    collection,
    chunkCount: data.chunks.length,
  };
}

function decide(command: DocumentCommand, state: DocumentState): Draft[] {
  const { docId } = command.data;
  switch (command.type) {
    case 'IngestDocument': {
      const data = command.data;
      if (state.status === 'none') {
        return [
          {
            type: 'DocumentIngested',
            data: {
              docId,
              source: data.source,
              sourceKind: data.sourceKind,
              ...facts(data),
              reservations: data.reservations,
              taskId: data.taskId,
            },
          },
          ...data.chunks.map((chunk, index) => chunkEvent(docId, index, chunk)),
        ];
      }
      if (!data.replace) {
        throw new InvalidStateError('document_exists', `Document ${docId} exists already`, { docId });
      }
      const changes: Draft[] = [];
      let added = 0;
      let updated = 0;
      let skipped = 0;
      data.chunks.forEach((chunk, index) => {
        const previous = state.chunkHashes[index];
        if (previous === chunk.contentHash) skipped += 1;
        else {
          if (previous === undefined) added += 1;
          else updated += 1;
          changes.push(chunkEvent(docId, index, chunk));
        }
      });
      for (let index = data.chunks.length; index < state.chunkHashes.length; index += 1) {
        changes.push({ type: 'ChunkRemoved', data: { docId, chunkId: chunkId(docId, index), index } });
      }
      return [
        {
          type: 'DocumentReingested',
          data: {
            docId,
            ...facts(data),
            chunksAdded: added,
            chunksUpdated: updated,
            chunksSkipped: skipped,
            reservations: data.reservations,
            taskId: data.taskId,
          },
        },
        ...changes,
      ];
    }
    case 'DeleteDocument':
      if (state.status === 'none')
        throw new NotFoundError('document_not_found', `Document ${docId} does not exist`, { docId });
      return [
        {
          type: 'DocumentDeleted',
          data: {
            docId,
            stream: documentStream(docId),
            reservations: state.reservations,
            chunkCount: state.chunkHashes.length,
            chunkHashes: [...new Set(state.chunkHashes)],
            tasks: state.tasks,
          },
        },
      ];
  }
}

function evolve(state: DocumentState, event: DocumentEvent): DocumentState {
  switch (event.type) {
    case 'DocumentIngested': {
      const { docId, source, sourceKind, taskId, ...rest } = event.data;
      return {
        status: 'active',
        docId,
        source,
        sourceKind,
        ...rest,
        tasks: taskId === null ? [] : [taskId],
        chunkHashes: [],
        createdAt: event.metadata.now,
        updatedAt: event.metadata.now,
      };
    }
    case 'DocumentReingested': {
      if (state.status !== 'active') return state;
      const {
        docId: _docId,
        chunksAdded: _a,
        chunksUpdated: _u,
        chunksSkipped: _s,
        taskId,
        ...rest
      } = event.data;
      const tasks = taskId === null || state.tasks.includes(taskId) ? state.tasks : [...state.tasks, taskId];
      return { ...state, ...rest, tasks, updatedAt: event.metadata.now };
    }
    case 'ChunkStored': {
      if (state.status !== 'active') return state;
      const chunkHashes = [...state.chunkHashes];
      chunkHashes[event.data.index] = event.data.contentHash;
      return { ...state, chunkHashes };
    }
    case 'ChunkRemoved':
      if (state.status !== 'active') return state;
      return { ...state, chunkHashes: state.chunkHashes.slice(0, event.data.index) };
    case 'DocumentDeleted':
      return state;
  }
}

export const documentDecider: Decider<DocumentCommand, DocumentEvent, DocumentState> = {
  decide,
  evolve,
  initialState: () => ({ status: 'none' }),
};
