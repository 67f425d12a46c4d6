import { citedFocus, PASSAGE_PROPERTIES, passageOf } from '../../knowledge/passage.js';
import { FILTERS_SCHEMA } from '../../knowledge/searchFilters.js';
import type { KnowledgeUseCases } from '../../knowledge/knowledgeUseCases.js';
import type { DenseUsed, SearchHit } from '../../knowledge/search.js';
import { defineRoute } from '../route.js';
import { errorResponses, modelErrorResponses } from './schemas.js';

export interface SearchRouteDeps {
  knowledge: Pick<KnowledgeUseCases, 'search' | 'answer'>;
}

const round = (score: number): number => Math.round(score * 1e6) / 1e6;

function resultOf(hit: SearchHit, query: string): Record<string, unknown> {
  return {
    text: hit.chunk.text,
    excerpt: passageOf(hit, query)['excerpt'],
    source: hit.document.source,
    metadata: {
      title: hit.document.title,
      section: hit.document.section,
      language: hit.chunk.language || hit.document.language,
      section_path: hit.chunk.sectionPath,
      page_start: hit.chunk.pageStart,
      page_end: hit.chunk.pageEnd,
      chunk_id: hit.chunk.id,
    },
    score: round(hit.score),
    doc_id: hit.document.id,
  };
}

/** Which vectors a search read: the collection, or `off` and why (lexical only). */
const denseRetrieval = (dense: DenseUsed): string =>
  dense.collection ?? `off (${dense.reason ?? 'lexical only'})`;

const DENSE_HEADER = 'x-dense-retrieval';

const questionText = { type: 'string', minLength: 1, maxLength: 4_000, pattern: '\\S' } as const;

export function searchRoutes(deps: SearchRouteDeps) {
  return [
    defineRoute({
      method: 'post',
      path: '/search',
      operationId: 'search',
      summary: 'Hybrid semantic and keyword search over the stored chunks (no answer generation)',
      description:
        'Vector similarity and BM25 keyword search each give initial_k candidates, fused by reciprocal rank, reranked when the reranker is on, cut to top_k. score: the reranker score when reranking, else the fused score; comparable within one response only. The X-Dense-Retrieval header names the vector collection read, or says off (why) when the search was lexical only because a new collection is still being built beside one this process cannot embed queries for.',
      tags: ['Query'],
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          required: ['query', 'top_k', 'initial_k'],
          properties: {
            query: questionText,
            top_k: { type: 'integer', minimum: 1, maximum: 50, default: 5 },
            initial_k: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            filters: FILTERS_SCHEMA,
          },
        },
      },
      responses: {
        200: {
          description: 'Matching chunks, best first',
          schema: {
            type: 'object',
            required: ['results', 'count'],
            properties: {
              results: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['text', 'excerpt', 'source', 'metadata', 'score', 'doc_id'],
                  properties: {
                    text: { type: 'string' },
                    excerpt: PASSAGE_PROPERTIES.excerpt,
                    source: { type: 'string' },
                    metadata: {
                      type: 'object',
                      required: ['title', 'section', 'language'],
                      properties: {
                        title: { type: 'string' },
                        section: { type: 'string' },
                        language: { type: 'string' },
                      },
                    },
                    score: { type: 'number' },
                    doc_id: {
                      type: 'string',
                      description: 'The document (ingested file or page) the chunk belongs to',
                    },
                  },
                },
              },
              count: { type: 'integer' },
            },
          },
        },
        ...errorResponses,
        ...modelErrorResponses,
      },
      async handle({ body, signal, caller }) {
        const { hits, dense } = await deps.knowledge.search(
          {
            query: body.query,
            topK: body.top_k,
            initialK: Math.max(body.initial_k, body.top_k),
            ...(body.filters ? { filters: body.filters } : {}),
            signal,
          },
          caller,
        );
        return {
          body: { results: hits.map((hit) => resultOf(hit, body.query)), count: hits.length },
          headers: { [DENSE_HEADER]: denseRetrieval(dense) },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/query',
      operationId: 'query',
      summary: 'Answer a question from the stored documents, with sources',
      tags: ['Query'],
      body: {
        contentType: 'application/json',
        schema: {
          type: 'object',
          required: ['question', 'top_k', 'initial_k', 'include_timing', 'include_context'],
          properties: {
            question: questionText,
            top_k: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
            initial_k: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            filters: FILTERS_SCHEMA,
            include_timing: { type: 'boolean', default: true },
            include_context: { type: 'boolean', default: false },
            temperature: { type: ['number', 'null'], minimum: 0, maximum: 2, default: null },
          },
        },
      },
      responses: {
        200: {
          description: 'The answer and its sources (numbered [n] in the answer, in this order)',
          schema: {
            type: 'object',
            required: ['question', 'answer', 'sources', 'context_used', 'abstained'],
            properties: {
              question: { type: 'string' },
              answer: { type: 'string' },
              abstained: {
                type: 'boolean',
                description:
                  'The answer says the documents do not hold it (additive to the spec); sources are then the nearest passages',
              },
              sources: {
                type: 'array',
                items: {
                  type: 'object',
                  required: [
                    'title',
                    'source',
                    'section',
                    'score',
                    'doc_id',
                    'chunk_id',
                    'section_path',
                    'page_start',
                    'page_end',
                    'excerpt',
                  ],
                  properties: {
                    title: { type: 'string' },
                    source: { type: 'string' },
                    section: { type: 'string' },
                    score: { type: 'number' },
                    doc_id: { type: 'string' },
                    ...PASSAGE_PROPERTIES,
                  },
                },
              },
              timing: {
                type: 'object',
                description: 'Seconds',
                required: [
                  'embedding',
                  'vector_search',
                  'reranking',
                  'retrieval_total',
                  'context_formatting',
                  'llm_generation',
                  'total',
                ],
                properties: Object.fromEntries(
                  [
                    'embedding',
                    'vector_search',
                    'keyword_search',
                    'reranking',
                    'retrieval_total',
                    'context_formatting',
                    'llm_generation',
                    'total',
                  ]
                    .map((name): [string, object] => [name, { type: 'number' }])
                    .concat([
                      [
                        'dense_retrieval',
                        {
                          type: 'string',
                          description:
                            'Not a time: the vector collection the search read, or "off (why)" when it was lexical only (a new collection is still being built and the active one cannot be searched here)',
                        },
                      ],
                    ]),
                ),
              },
              context_used: { type: ['string', 'null'] },
              tokens_used: {
                type: 'object',
                properties: {
                  input: { type: 'integer' },
                  output: { type: 'integer' },
                  total: { type: 'integer' },
                },
              },
            },
          },
        },
        ...errorResponses,
        ...modelErrorResponses,
      },
      async handle({ body, signal, caller }) {
        const answer = await deps.knowledge.answer(
          {
            question: body.question,
            topK: body.top_k,
            initialK: Math.max(body.initial_k, body.top_k),
            temperature: body.temperature ?? null,
            ...(body.filters ? { filters: body.filters } : {}),
            signal,
          },
          caller,
        );
        const { timing } = answer;
        return {
          body: {
            question: answer.question,
            answer: answer.answer,
            abstained: answer.abstained,
            sources: answer.hits.map((hit, index) => ({
              title: hit.document.title,
              source: hit.document.source,
              section: hit.document.section,
              score: round(hit.score),
              doc_id: hit.document.id,
              ...passageOf(hit, citedFocus(answer.answer, index, body.question)),
            })),
            ...(body.include_timing
              ? {
                  timing: {
                    embedding: timing.embedding,
                    vector_search: timing.vectorSearch,
                    keyword_search: timing.lexicalSearch,
                    reranking: timing.reranking,
                    retrieval_total: timing.retrievalTotal,
                    context_formatting: timing.contextFormatting,
                    llm_generation: timing.llmGeneration,
                    total: timing.total,
                    dense_retrieval: denseRetrieval(answer.dense),
                  },
                }
              : {}),
            context_used: body.include_context ? answer.context : null,
            tokens_used: answer.usage,
          },
        };
      },
    }),
  ];
}
