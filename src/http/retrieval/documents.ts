import type { Caller } from '../../commands/context.js';
import type { ReadModels } from '../../projections/readModels.js';
import { DOCUMENTS, KNOWLEDGE, type DocumentView } from '../../projections/knowledgeProjection.js';
import type { SearchFilters } from '../../knowledge/searchFilters.js';
import type { Filter } from '../../readStore/readStore.js';
import { VECTORS_PROJECTION } from '../../knowledge/vectorProjector.js';
import { HttpError } from '../httpError.js';
import { defineRoute } from '../route.js';
import { errorResponses, errorSchema, nullableString } from './schemas.js';
import { documentSummary } from '../../knowledge/documentSummary.js';
import { MAX_DELETE_BATCH, type KnowledgeUseCases } from '../../knowledge/knowledgeUseCases.js';

export interface DocumentRouteDeps {
  knowledge: Pick<KnowledgeUseCases, 'document' | 'text' | 'delete' | 'deleteWhere' | 'visible'>;
  readModels: ReadModels;
}

/** Characters of text a listed document carries; `GET /documents/{doc_id}` gives the whole text. */
const LIST_TEXT_CHARS = 1_000;
/** Deep enough for 100 million documents at 100 a page; beyond it offsets stop being meaningful. */
const MAX_PAGE = 1_000_000;
const READ_AFTER_DELETE = [KNOWLEDGE, VECTORS_PROJECTION];

const documentSchema = {
  type: 'object',
  required: ['id', 'text', 'metadata'],
  properties: {
    id: { type: 'string' },
    text: { type: 'string' },
    text_truncated: {
      type: 'boolean',
      description: `In lists only: true when text holds the first ${LIST_TEXT_CHARS} characters`,
    },
    metadata: {
      type: 'object',
      required: ['title', 'source', 'section', 'language'],
      properties: {
        title: { type: 'string' },
        source: { type: 'string', description: 'Upload path (<section>/<file name>) or URL' },
        section: { type: 'string' },
        collection: { type: 'string', description: 'The collection it belongs to (additive)' },
        language: { type: 'string' },
        format: { type: 'string' },
        chunk_count: { type: 'integer' },
        size_bytes: { type: 'integer' },
        created_at: { type: 'string', format: 'date-time' },
        updated_at: { type: 'string', format: 'date-time' },
      },
    },
  },
} as const;

const deletionSchema = {
  type: 'object',
  required: ['doc_id', 'status', 'message'],
  properties: {
    doc_id: { type: 'string' },
    status: { type: 'string', enum: ['deleted', 'not_found', 'error'] },
    message: nullableString,
  },
} as const;

const criteriaResultSchema = {
  type: 'object',
  required: ['deleted', 'doc_ids', 'more'],
  properties: {
    deleted: { type: 'integer' },
    doc_ids: { type: 'array', items: { type: 'string' } },
    more: { type: 'boolean', description: `True when more than ${MAX_DELETE_BATCH} matched: call again` },
  },
} as const;

/** The document fields GET /documents can be narrowed by (the search filters' keys but doc_id). */
const LIST_FILTER_KEYS = ['language', 'section', 'source', 'title', 'collection', 'format'] as const;

/** The list's query parameters as search filters. */
function listFilters(
  query: Partial<Record<(typeof LIST_FILTER_KEYS)[number], string[]>> & {
    created_from?: string;
    created_to?: string;
  },
): SearchFilters {
  const filters: SearchFilters = {};
  for (const key of LIST_FILTER_KEYS) {
    const values = query[key];
    if (values !== undefined) filters[key] = values.length === 1 ? values[0]! : values;
  }
  if (query.created_from !== undefined || query.created_to !== undefined) {
    filters.created_at = {
      ...(query.created_from !== undefined ? { from: query.created_from } : {}),
      ...(query.created_to !== undefined ? { to: query.created_to } : {}),
    };
  }
  return filters;
}

export function documentRoutes(deps: DocumentRouteDeps) {
  const { readModels, knowledge } = deps;

  /** A deletion by criteria, as the spec answers it. */
  async function deleteWhere(filter: Filter, caller: Caller) {
    const { deleted, more, position } = await knowledge.deleteWhere(filter, caller);
    return { body: { deleted: deleted.length, doc_ids: deleted, more }, position };
  }

  return [
    defineRoute({
      method: 'get',
      path: '/documents',
      operationId: 'listDocuments',
      summary: 'List stored documents, newest first',
      description: `A document is one ingested file or web page. Listed documents carry the first ${LIST_TEXT_CHARS} characters of their text (text_truncated says whether there is more); GET /documents/{doc_id} returns all of it. Additive to the spec, the list can be narrowed by the documents' fields, as search filters narrow a search: each of ${LIST_FILTER_KEYS.join(', ')} once for equality or repeated for any of several values, and created_from/created_to for a range of creation times (both ends included); total and pages count the matching documents.`,
      tags: ['Documents'],
      query: {
        type: 'object',
        properties: {
          page: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1 },
          page_size: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          ...Object.fromEntries(
            LIST_FILTER_KEYS.map((key) => [
              key,
              { type: 'array', items: { type: 'string', minLength: 1, maxLength: 2_000 }, maxItems: 50 },
            ]),
          ),
          created_from: { type: 'string', format: 'date-time' },
          created_to: { type: 'string', format: 'date-time' },
        },
        required: ['page', 'page_size'],
      },
      responses: {
        200: {
          description: 'A page of documents',
          schema: {
            type: 'object',
            required: ['documents', 'total', 'page', 'page_size', 'pages'],
            properties: {
              documents: { type: 'array', items: documentSchema },
              total: { type: 'integer' },
              page: { type: 'integer' },
              page_size: { type: 'integer' },
              pages: { type: 'integer' },
            },
          },
        },
        ...errorResponses,
      },
      async handle({ query, caller }) {
        const filter = await knowledge.visible(caller, listFilters(query));
        const [found, total] = await Promise.all([
          readModels.find<DocumentView>(DOCUMENTS, {
            filter,
            sort: [['sequence', -1]],
            skip: (query.page - 1) * query.page_size,
            limit: query.page_size,
          }),
          readModels.count(DOCUMENTS, filter),
        ]);
        const documents = await Promise.all(
          found.map(async (doc) => {
            const text = await knowledge.text(doc.id, LIST_TEXT_CHARS + 1);
            return {
              id: doc.id,
              text: text.slice(0, LIST_TEXT_CHARS),
              text_truncated: text.length > LIST_TEXT_CHARS,
              metadata: documentSummary(doc),
            };
          }),
        );
        return {
          body: {
            documents,
            total,
            page: query.page,
            page_size: query.page_size,
            pages: Math.ceil(total / query.page_size),
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/documents/sources',
      operationId: 'listSources',
      summary: 'Every distinct source (upload path or URL)',
      tags: ['Documents'],
      responses: {
        200: {
          description: 'Sources',
          schema: {
            type: 'object',
            required: ['sources', 'count'],
            properties: { sources: { type: 'array', items: { type: 'string' } }, count: { type: 'integer' } },
          },
        },
        ...errorResponses,
      },
      async handle({ caller }) {
        const groups = await readModels.countBy(DOCUMENTS, 'source', await knowledge.visible(caller));
        const sources = groups.map((group) => String(group.value)).sort();
        return { body: { sources, count: sources.length } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/documents/stats',
      operationId: 'documentStats',
      summary: 'Documents by source and by language',
      tags: ['Documents'],
      responses: {
        200: {
          description: 'Statistics',
          schema: {
            type: 'object',
            required: ['total_documents', 'by_source', 'by_language'],
            properties: {
              total_documents: { type: 'integer' },
              by_source: { type: 'object', additionalProperties: { type: 'integer' } },
              by_language: { type: 'object', additionalProperties: { type: 'integer' } },
            },
          },
        },
        ...errorResponses,
      },
      async handle({ caller }) {
        const filter = await knowledge.visible(caller);
        const [total, bySource, byLanguage] = await Promise.all([
          readModels.count(DOCUMENTS, filter),
          readModels.countBy(DOCUMENTS, 'source', filter),
          readModels.countBy(DOCUMENTS, 'language', filter),
        ]);
        const asObject = (groups: typeof bySource) =>
          Object.fromEntries(groups.map((group) => [String(group.value), group.count]));
        return {
          body: { total_documents: total, by_source: asObject(bySource), by_language: asObject(byLanguage) },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/documents/{doc_id}',
      operationId: 'getDocument',
      summary: 'A stored document with its whole text',
      tags: ['Documents'],
      params: {
        type: 'object',
        required: ['doc_id'],
        properties: { doc_id: { type: 'string', maxLength: 200 } },
      },
      responses: {
        200: { description: 'The document', schema: documentSchema },
        404: { description: 'No such document', schema: errorSchema },
        ...errorResponses,
      },
      async handle({ params, caller }) {
        const doc = await knowledge.document(params.doc_id, caller);
        return { body: { id: doc.id, text: await knowledge.text(doc.id), metadata: documentSummary(doc) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/documents/{doc_id}',
      operationId: 'deleteDocument',
      summary: 'Delete a document with its chunks, vectors and duplicate keys',
      description: 'An unknown id answers 200 with status not_found, as the spec says.',
      tags: ['Documents'],
      readAfterWrite: READ_AFTER_DELETE,
      params: {
        type: 'object',
        required: ['doc_id'],
        properties: { doc_id: { type: 'string', maxLength: 200 } },
      },
      responses: {
        200: { description: 'What happened', schema: deletionSchema },
        ...errorResponses,
      },
      async handle({ params, caller }) {
        const outcome = await knowledge.delete(params.doc_id, caller);
        if (outcome.status === 'forbidden')
          throw new HttpError(403, 'collection_forbidden', outcome.message ?? 'Not allowed');
        return {
          body: { doc_id: params.doc_id, status: outcome.status, message: outcome.message },
          ...(outcome.position ? { position: outcome.position } : {}),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/documents/delete',
      operationId: 'deleteDocuments',
      summary: 'Delete several documents by id',
      tags: ['Documents'],
      readAfterWrite: READ_AFTER_DELETE,
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          required: ['doc_ids'],
          properties: {
            doc_ids: {
              type: 'array',
              items: { type: 'string', maxLength: 200 },
              minItems: 1,
              maxItems: MAX_DELETE_BATCH,
            },
          },
        },
      },
      responses: {
        200: {
          description: 'One entry per id',
          schema: {
            type: 'object',
            required: ['deleted', 'skipped', 'errors', 'details'],
            properties: {
              deleted: { type: 'integer' },
              skipped: { type: 'integer', description: 'Ids of no document (status not_found)' },
              errors: { type: 'integer' },
              details: { type: 'array', items: deletionSchema },
            },
          },
        },
        ...errorResponses,
      },
      async handle({ body, caller }) {
        const details: Array<{ doc_id: string; status: string; message: string | null }> = [];
        let position = 0;
        for (const docId of [...new Set(body.doc_ids)]) {
          const outcome = await knowledge.delete(docId, caller);
          position = Math.max(position, outcome.position);
          const status = outcome.status === 'forbidden' ? 'error' : outcome.status;
          details.push({ doc_id: docId, status, message: outcome.message });
        }
        const count = (status: string) => details.filter((detail) => detail.status === status).length;
        return {
          body: { deleted: count('deleted'), skipped: count('not_found'), errors: count('error'), details },
          ...(position ? { position } : {}),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/documents/delete/by-source',
      operationId: 'deleteDocumentsBySource',
      summary: 'Delete every document of a source',
      tags: ['Documents'],
      readAfterWrite: READ_AFTER_DELETE,
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          required: ['source'],
          properties: { source: { type: 'string', minLength: 1, maxLength: 4096 } },
        },
      },
      responses: {
        200: { description: 'What was deleted', schema: criteriaResultSchema },
        ...errorResponses,
      },
      async handle({ body, caller }) {
        const { body: result, position } = await deleteWhere({ source: body.source }, caller);
        return { body: result, ...(position ? { position } : {}) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/documents/delete/by-filter',
      operationId: 'deleteDocumentsByFilter',
      summary: 'Delete the documents whose metadata equals every given value',
      tags: ['Documents'],
      readAfterWrite: READ_AFTER_DELETE,
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          required: ['where'],
          properties: {
            where: {
              type: 'object',
              minProperties: 1,
              // An unknown key is refused, not dropped: a mistyped key must not widen a deletion.
              propertyNames: { enum: ['source', 'section', 'language', 'title', 'format'] },
              properties: {
                source: { type: 'string' },
                section: { type: 'string' },
                language: { type: 'string' },
                title: { type: 'string' },
                format: { type: 'string' },
              },
            },
          },
        },
      },
      responses: {
        200: { description: 'What was deleted', schema: criteriaResultSchema },
        ...errorResponses,
      },
      async handle({ body, caller }) {
        const { body: result, position } = await deleteWhere(body.where as Filter, caller);
        return { body: result, ...(position ? { position } : {}) };
      },
    }),
  ];
}
