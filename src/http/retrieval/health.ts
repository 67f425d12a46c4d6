import type { Config } from '../../config.js';
import { isReady, type ComponentHealth } from '../../health.js';
import { adapterProvenance } from '../../adapterProvenance.js';
import type { ProjectionProgress } from '../../projections/progress.js';
import type { ProjectionEngine } from '../../projections/engine.js';
import type { ReadModels } from '../../projections/readModels.js';
import { TASKS } from '../../projections/tasksProjection.js';
import { DOCUMENTS } from '../../projections/knowledgeProjection.js';
import type { KnowledgeBase } from '../../knowledge/knowledgeBase.js';
import { defineRoute } from '../route.js';
import { dateTime, errorSchema } from './schemas.js';

export interface HealthDeps {
  version: string;
  config: Pick<Config, 'apiKeys' | 'eventStore' | 'bus' | 'readStore' | 'vectorStore' | 'blobStore'>;
  knowledge: Pick<KnowledgeBase, 'collection' | 'vectorPath' | 'embedder' | 'chatModel' | 'reranker'>;
  health(): Promise<ComponentHealth[]>;
  projectionProgress(): Promise<ProjectionProgress>;
  projections: Pick<ProjectionEngine, 'positions'>;
  readModels: Pick<ReadModels, 'countBy' | 'count'>;
}

const componentSchema = {
  type: 'object',
  required: ['name', 'healthy', 'required', 'reason'],
  properties: {
    name: { type: 'string' },
    healthy: { type: 'boolean' },
    required: {
      type: 'boolean',
      description:
        'Whether readiness depends on this component (optional ones can be required with READY_REQUIRES)',
    },
    reason: { type: ['string', 'null'] },
  },
} as const;

const readinessSchema = {
  type: 'object',
  required: ['ready', 'components', 'timestamp'],
  properties: {
    ready: { type: 'boolean' },
    components: { type: 'array', items: componentSchema },
    timestamp: dateTime,
  },
} as const;

export function healthRoutes(deps: HealthDeps) {
  return [
    defineRoute({
      method: 'get',
      path: '/health',
      operationId: 'health',
      summary: 'Liveness',
      tags: ['Health'],
      public: true,
      responses: {
        200: {
          description: 'The process is up',
          schema: {
            type: 'object',
            required: ['status', 'version', 'timestamp'],
            properties: {
              status: { type: 'string', enum: ['healthy'] },
              version: { type: 'string' },
              timestamp: dateTime,
            },
          },
        },
      },
      async handle() {
        return { body: { status: 'healthy', version: deps.version, timestamp: new Date().toISOString() } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/health/ready',
      operationId: 'readiness',
      summary: 'Readiness of every component',
      description:
        'Ready when every required component is healthy (answers 503 otherwise, with the same body). Always required: event_store, read_store, bus and projections (unhealthy while catching up after a restart, when failed, or when a newer version of a projection is active than this process runs). Optional: embedder, llm, vector_store and reranker report their real state and count only when listed in READY_REQUIRES. `reason` says why one is not healthy.',
      tags: ['Health'],
      public: true,
      responses: {
        200: { description: 'Ready', schema: readinessSchema },
        503: { description: 'Not ready: at least one component is unhealthy', schema: readinessSchema },
      },
      async handle() {
        const components = await deps.health();
        const ready = isReady(components);
        return {
          status: ready ? 200 : 503,
          body: { ready, components, timestamp: new Date().toISOString() },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/health/stats',
      operationId: 'stats',
      summary: 'System statistics',
      description:
        'Counts from the read models (document_count, sources_count; they lag writes while projections catch up, which projections_state says), where vectors are kept, which models answer, and the state of the event log and projections.',
      tags: ['Health'],
      public: true,
      responses: {
        200: {
          description: 'Statistics',
          schema: {
            type: 'object',
            required: [
              'document_count',
              'sources_count',
              'vector_store_path',
              'collection_name',
              'embedding_model',
              'llm_model',
              'reranker_enabled',
              'reranker_model',
              'api_auth_enabled',
              'head_position',
              'projections_state',
              'tasks_by_status',
              'projections',
              'adapters',
              'timestamp',
            ],
            properties: {
              document_count: { type: 'integer' },
              sources_count: { type: 'integer', description: 'Distinct sources (upload paths and URLs)' },
              vector_store_path: {
                type: 'string',
                description: 'Folder of the embedded vector index (or the Milvus address and collection)',
              },
              collection_name: {
                type: 'string',
                description: 'Vector collection: one per embedding model and index version',
              },
              embedding_model: {
                type: 'string',
                description:
                  'The embedding model id, or local-hashed-ngrams-<dimensions> (the local default)',
              },
              llm_model: {
                type: 'string',
                description: 'The chat model id, or local-extractive (the local default)',
              },
              reranker_enabled: { type: 'boolean' },
              reranker_model: {
                type: ['string', 'null'],
                description: 'The reranker model id, local-term-proximity, or null when reranking is off',
              },
              api_auth_enabled: { type: 'boolean' },
              projections_state: {
                type: 'string',
                enum: ['live', 'catching_up', 'outdated', 'failed', 'stopped'],
                description:
                  'live when every read model has applied the whole log; stopped when one is behind and no process (projector role) applies it; the same judgement as the projections component of /health/ready',
              },
              head_position: {
                type: 'integer',
                description: 'Global position of the newest event in the event log',
              },
              tasks_by_status: { type: 'object', additionalProperties: { type: 'integer' } },
              projections: {
                type: 'array',
                description:
                  'Every read-model projection, whichever process applies it: its state here (live, catching_up, building, failed, outdated), applied_elsewhere (another process holds it) or stopped (no process does), the checkpoint of its active instance, and the process holding it',
                items: {
                  type: 'object',
                  required: ['name', 'state', 'position', 'holder'],
                  properties: {
                    name: { type: 'string' },
                    state: { type: 'string' },
                    position: { type: 'integer' },
                    holder: { type: ['string', 'null'] },
                  },
                },
              },
              adapters: {
                type: 'array',
                description:
                  'The adapter serving each port, and whether CI has ever run it against a real server of its engine (real_server_in_ci false: it has met only a stand-in)',
                items: {
                  type: 'object',
                  required: ['port', 'adapter', 'tested_against', 'real_server_in_ci'],
                  properties: {
                    port: { type: 'string' },
                    adapter: { type: 'string' },
                    tested_against: { type: 'string' },
                    real_server_in_ci: { type: 'boolean' },
                  },
                },
              },
              timestamp: dateTime,
            },
          },
        },
        503: { description: 'A store is unavailable', schema: errorSchema },
      },
      async handle() {
        const [groups, progress, documentCount, sources, positions] = await Promise.all([
          deps.readModels.countBy(TASKS, 'status'),
          deps.projectionProgress(),
          deps.readModels.count(DOCUMENTS),
          deps.readModels.countBy(DOCUMENTS, 'source'),
          deps.projections.positions(),
        ]);
        return {
          body: {
            document_count: documentCount,
            sources_count: sources.length,
            vector_store_path: deps.knowledge.vectorPath,
            collection_name: deps.knowledge.collection,
            embedding_model: deps.knowledge.embedder.name,
            llm_model: deps.knowledge.chatModel.name,
            reranker_enabled: deps.knowledge.reranker !== null,
            reranker_model: deps.knowledge.reranker?.name ?? null,
            api_auth_enabled: deps.config.apiKeys.length > 0,
            head_position: progress.head,
            projections_state: progress.state,
            tasks_by_status: Object.fromEntries(groups.map((group) => [String(group.value), group.count])),
            projections: positions,
            adapters: adapterProvenance(deps.config),
            timestamp: new Date().toISOString(),
          },
        };
      },
    }),
  ];
}
