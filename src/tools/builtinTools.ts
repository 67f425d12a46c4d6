import type { KnowledgeUseCases } from '../knowledge/knowledgeUseCases.js';
import { citedFocus, passageOf } from '../knowledge/passage.js';
import { documentAggregate, type TaskCommands } from '../commands/aggregates.js';
import type { Conversations } from '../conversations/conversations.js';
import type { Caller } from '../commands/context.js';
import { ForbiddenError, NotFoundError } from '../domain/shared/index.js';
import { USERS, type UserView } from '../projections/usersProjection.js';
import { CHUNKS, DOCUMENTS, type DocumentView } from '../projections/knowledgeProjection.js';
import type { ReadModels } from '../projections/readModels.js';
import { TASKS, type TaskView } from '../projections/tasksProjection.js';
import type { Tool } from './registry.js';
import { documentSummary } from '../knowledge/documentSummary.js';
import { purgeRecordStream } from '../commands/aggregate.js';
import type { EventStore } from '../eventStore/eventStore.js';

export interface BuiltinToolDeps {
  knowledge: Pick<
    KnowledgeUseCases,
    'search' | 'answer' | 'document' | 'text' | 'delete' | 'startScrape' | 'visible' | 'deletable'
  >;
  readModels: ReadModels;
  tasks: TaskCommands;
  conversations: Pick<Conversations, 'search'>;
  /** Where a resumed deletion looks for the deletion it made before its worker died. */
  eventStore: Pick<EventStore, 'readStream'>;
}

const round = (value: number): number => Math.round(value * 10_000) / 10_000;
const docId = { type: 'string', minLength: 1, maxLength: 128 };
const limit = (max: number, fallback: number) => ({
  type: 'integer',
  minimum: 1,
  maximum: max,
  default: fallback,
});

/** A document as the tools show it: its id and its metadata as `/documents/{id}` shows it. */
const documentData = (doc: DocumentView) => ({ doc_id: doc.id, ...documentSummary(doc) });

function taskData(task: TaskView) {
  return {
    task_id: task.id,
    job_type: task.jobType,
    status: task.status,
    progress: task.progress,
    message: task.message,
    error: task.error,
    created_at: task.createdAt,
    completed_at: task.completedAt,
  };
}

/**
 * The tools over the knowledge base, tasks and conversations. Risk levels (docs/api-notes.md):
 * reading is low; adding to the shared knowledge base from the web is medium (it fetches outside
 * addresses and can be undone by deleting); destroying something — a document for every user, a
 * running task's work — is high and waits for confirmation.
 */
export function builtinTools(deps: BuiltinToolDeps): Tool[] {
  const { readModels } = deps;
  /** Tasks are the caller's own: anyone else's is as unknown as one that never existed. */
  async function ownTask(taskId: string, actorId: string): Promise<TaskView> {
    const task = await readModels.get<TaskView>(TASKS, taskId);
    if (!task || (task.owner !== actorId && task.createdBy !== actorId)) {
      throw new NotFoundError('task_not_found', `Task ${taskId} does not exist`);
    }
    return task;
  }
  const { knowledge } = deps;
  /**
   * The call's caller reading as the user it acts for: the knowledge base shows a user the
   * collections open to everyone and those granted to them (an administrator everything).
   */
  async function asOwner(context: { owner: string; caller: Caller }): Promise<Caller> {
    const [user] = await readModels.find<UserView>(USERS, {
      filter: { nameKey: context.owner.toLowerCase() },
      limit: 1,
    });
    return { ...context.caller, reader: { kind: 'user', name: context.owner, admin: user?.admin ?? false } };
  }

  return [
    {
      name: 'search_knowledge',
      description: 'Hybrid search of the knowledge base: the passages that best match a query',
      category: 'knowledge',
      risk: 'low',
      idempotent: true,
      params: {
        type: 'object',
        required: ['query'],
        additionalProperties: false,
        properties: { query: { type: 'string', minLength: 1, maxLength: 2_000 }, top_k: limit(50, 5) },
      },
      async run(params, context) {
        const topK = params['top_k'] as number;
        const { hits } = await knowledge.search(
          { query: params['query'] as string, topK, initialK: Math.max(20, topK), signal: context.signal },
          await asOwner(context),
        );
        return {
          results: hits.map((hit) => ({
            doc_id: hit.document.id,
            title: hit.document.title,
            source: hit.document.source,
            text: hit.chunk.text,
            score: round(hit.score),
            ...passageOf(hit, params['query'] as string),
          })),
        };
      },
    },
    {
      name: 'query_knowledge',
      description: 'Answers a question from the knowledge base, with its sources',
      category: 'knowledge',
      risk: 'low',
      idempotent: true,
      params: {
        type: 'object',
        required: ['question'],
        additionalProperties: false,
        properties: { question: { type: 'string', minLength: 1, maxLength: 2_000 }, top_k: limit(20, 5) },
      },
      async run(params, context) {
        const topK = params['top_k'] as number;
        const answer = await knowledge.answer(
          {
            question: params['question'] as string,
            topK,
            initialK: Math.max(20, topK),
            temperature: null,
            signal: context.signal,
          },
          await asOwner(context),
        );
        return {
          answer: answer.answer,
          abstained: answer.abstained,
          sources: answer.hits.map((hit, index) => ({
            doc_id: hit.document.id,
            title: hit.document.title,
            score: round(hit.score),
            ...passageOf(hit, citedFocus(answer.answer, index, params['question'] as string)),
          })),
          // What the answering model read and wrote: a chat turn counts it in its tokens_used.
          tokens_used: answer.usage,
        };
      },
    },
    {
      name: 'list_documents',
      description: 'Documents of the knowledge base, newest first',
      category: 'knowledge',
      risk: 'low',
      idempotent: true,
      params: {
        type: 'object',
        additionalProperties: false,
        properties: {
          limit: limit(100, 20),
          offset: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
        },
      },
      async run(params, context) {
        const filter = await knowledge.visible(await asOwner(context));
        const [docs, total] = await Promise.all([
          readModels.find<DocumentView>(DOCUMENTS, {
            filter,
            sort: [['sequence', -1]],
            limit: params['limit'] as number,
            skip: params['offset'] as number,
          }),
          readModels.count(DOCUMENTS, filter),
        ]);
        return { documents: docs.map(documentData), total };
      },
    },
    {
      name: 'get_document',
      description: "A document's details and the beginning of its text",
      category: 'knowledge',
      risk: 'low',
      idempotent: true,
      params: {
        type: 'object',
        required: ['doc_id'],
        additionalProperties: false,
        properties: {
          doc_id: docId,
          max_chars: { type: 'integer', minimum: 0, maximum: 100_000, default: 2_000 },
        },
      },
      async run(params, context) {
        const doc = await knowledge.document(params['doc_id'] as string, await asOwner(context));
        const max = params['max_chars'] as number;
        const text = await knowledge.text(doc.id, max);
        return { ...documentData(doc), text: text.slice(0, max) };
      },
    },
    {
      name: 'delete_document',
      description: 'Deletes a document from the knowledge base, for every user (needs confirmation)',
      category: 'knowledge',
      risk: 'high',
      idempotent: true,
      params: {
        type: 'object',
        required: ['doc_id'],
        additionalProperties: false,
        properties: { doc_id: docId },
      },
      async precheck(params, context) {
        // Refused outright when the document is one the user cannot see or its collection one they cannot write.
        await knowledge.deletable(params['doc_id'] as string, await asOwner(context));
      },
      async run(params, context) {
        const { resumed } = context;
        const caller = await asOwner(context);
        const id = params['doc_id'] as string;
        if (resumed) {
          // Deleted by this very call before its worker died: answer as it would have. The
          // document's own stream is gone with it; the deletion record outlives it.
          const record = await deps.eventStore.readStream(purgeRecordStream(documentAggregate.streamOf(id)));
          const done = record.some(
            (event) =>
              event.type === 'DocumentDeleted' && event.metadata.correlationId === caller.correlationId,
          );
          if (done) {
            const stale = await readModels.get<DocumentView>(DOCUMENTS, id);
            return { doc_id: id, title: stale?.title ?? null, deleted: true };
          }
        }
        const doc = await knowledge.document(id, caller);
        const deleted = await knowledge.delete(doc.id, caller);
        if (deleted.status === 'not_found')
          throw new NotFoundError('document_not_found', deleted.message ?? '');
        if (deleted.status === 'forbidden')
          throw new ForbiddenError('collection_forbidden', deleted.message ?? '');
        if (deleted.status !== 'deleted') throw new Error(deleted.message ?? 'the deletion failed');
        return { doc_id: doc.id, title: doc.title, deleted: true };
      },
    },
    {
      name: 'scrape_url',
      description: 'Fetches a web page or a document by URL into the knowledge base (a background task)',
      category: 'knowledge',
      risk: 'medium',
      params: {
        type: 'object',
        required: ['url'],
        additionalProperties: false,
        properties: {
          url: { type: 'string', minLength: 1, maxLength: 2_048, pattern: '^[hH][tT][tT][pP][sS]?://' },
        },
      },
      async run(params, context) {
        const created = await knowledge.startScrape(
          [params['url'] as string],
          { timeoutSeconds: 30, skipDuplicates: true },
          await asOwner(context),
        );
        return { task_id: created.taskId, status: 'pending' };
      },
    },
    {
      name: 'knowledge_stats',
      description: 'How many documents the knowledge base holds, by source kind and language',
      category: 'knowledge',
      risk: 'low',
      idempotent: true,
      params: { type: 'object', additionalProperties: false, properties: {} },
      async run(_params, context) {
        const filter = await knowledge.visible(await asOwner(context));
        if (Object.keys(filter).length === 0) {
          const [documents, chunks, byLanguage] = await Promise.all([
            readModels.count(DOCUMENTS),
            readModels.count(CHUNKS),
            readModels.countBy(DOCUMENTS, 'language'),
          ]);
          return { documents, chunks, by_language: byLanguage };
        }
        // Some collections are hidden from this user: counted from the documents they may see.
        const visible = await readModels.find<DocumentView>(DOCUMENTS, { filter });
        const languages = new Map<string, number>();
        for (const doc of visible) languages.set(doc.language, (languages.get(doc.language) ?? 0) + 1);
        return {
          documents: visible.length,
          chunks: visible.reduce((sum, doc) => sum + doc.chunkCount, 0),
          by_language: [...languages].map(([value, count]) => ({ value, count })),
        };
      },
    },
    {
      name: 'list_tasks',
      description: "The current user's background tasks, newest first",
      category: 'tasks',
      risk: 'low',
      idempotent: true,
      params: {
        type: 'object',
        additionalProperties: false,
        properties: {
          status: { enum: ['pending', 'running', 'completed', 'failed', 'cancelled'] },
          limit: limit(100, 20),
        },
      },
      async run(params, { caller }) {
        const filter = {
          owner: caller.actorId,
          ...(params['status'] ? { status: params['status'] as string } : {}),
        };
        const tasks = await readModels.find<TaskView>(TASKS, {
          filter,
          sort: [['sequence', -1]],
          limit: params['limit'] as number,
        });
        return { tasks: tasks.map(taskData) };
      },
    },
    {
      name: 'cancel_task',
      description: "Cancels one of the current user's tasks; its work so far is lost (needs confirmation)",
      category: 'tasks',
      risk: 'high',
      // Cancelling a cancelled task records nothing more (the task decider).
      idempotent: true,
      params: {
        type: 'object',
        required: ['task_id'],
        additionalProperties: false,
        properties: { task_id: { type: 'string', minLength: 1, maxLength: 128 } },
      },
      async run(params, { caller }) {
        const task = await ownTask(params['task_id'] as string, caller.actorId);
        await deps.tasks.execute(
          'CancelTask',
          { taskId: task.id, reason: 'cancelled by the assistant' },
          caller,
        );
        return { task_id: task.id, cancelled: true };
      },
    },
    {
      name: 'search_conversations',
      description: "Full-text search of the current user's conversations",
      category: 'conversations',
      risk: 'low',
      idempotent: true,
      params: {
        type: 'object',
        required: ['query'],
        additionalProperties: false,
        properties: { query: { type: 'string', minLength: 1, maxLength: 500 }, limit: limit(100, 20) },
      },
      async run(params, { owner }) {
        const hits = await deps.conversations.search(owner, params['query'] as string, {
          page: 1,
          pageSize: params['limit'] as number,
        });
        return {
          results: hits.map((hit) => ({
            conversation_id: hit.conversationId,
            title: hit.title,
            match: hit.kind,
            snippet: hit.snippet,
          })),
        };
      },
    },
  ];
}
