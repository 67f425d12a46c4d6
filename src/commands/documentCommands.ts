import type { DocumentCommand } from '../domain/document/commands.js';
import type { DocumentState } from '../domain/document/decider.js';
import { documentDecider } from '../domain/document/decider.js';
import type { DocumentEvent } from '../domain/document/events.js';
import { documentEvents } from '../domain/document/events.js';
import type { EventStore } from '../eventStore/eventStore.js';
import { defineAggregate } from './aggregate.js';
import type { CommandOutcome } from './commandHandler.js';
import { createCommandHandler } from './commandHandler.js';
import type { Caller, Clock } from './context.js';
import { metadataFor } from './context.js';

export const documentAggregate = defineAggregate({
  category: 'document',
  decider: documentDecider,
  events: documentEvents,
  purgedBy: ['DocumentDeleted'],
});

type DataOf<T extends DocumentCommand['type']> = Extract<DocumentCommand, { type: T }>['data'];
export type DocumentOutcome = CommandOutcome<DocumentEvent, DocumentState>;

/** The document aggregate's commands, with metadata stamped from the caller and the clock. */
export function createDocumentCommands(deps: { eventStore: EventStore; clock: Clock }) {
  const handler = createCommandHandler(documentAggregate, { eventStore: deps.eventStore });
  function run<T extends DocumentCommand['type']>(
    type: T,
    data: DataOf<T>,
    caller: Caller,
  ): Promise<DocumentOutcome> {
    const command = { type, data, metadata: metadataFor(caller, deps.clock) } as DocumentCommand;
    return handler.handle(data.docId, command);
  }
  return {
    ingest: (data: DataOf<'IngestDocument'>, caller: Caller) => run('IngestDocument', data, caller),
    delete: (data: DataOf<'DeleteDocument'>, caller: Caller) => run('DeleteDocument', data, caller),
    /** The document's current state, read from its stream (not a projection). */
    state: async (docId: string): Promise<DocumentState> => (await handler.read(docId)).state,
  };
}

export type DocumentCommands = ReturnType<typeof createDocumentCommands>;
