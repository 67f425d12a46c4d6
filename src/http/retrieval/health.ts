import type { Config } from '../../config.js';
import type { ComponentHealth } from '../../health.js';
import type { ProjectionEngine } from '../../projections/engine.js';
import type { ReadModels } from '../../projections/readModels.js';
import { TASKS } from '../../projections/tasksProjection.js';
import type { EventStore } from '../../eventStore/eventStore.js';
import { defineRoute } from '../route.js';
import { dateTime, errorSchema } from './schemas.js';

export interface HealthDeps {
  version: string;
  config: Pick<Config, 'apiKeys'>;
  health(): Promise<ComponentHealth[]>;
  eventStore: Pick<EventStore, 'headPosition'>;
  projections: Pick<ProjectionEngine, 'status'>;
  readModels: Pick<ReadModels, 'countBy'>;
}

const componentSchema = {
  type: 'object',
  required: ['name', 'healthy', 'reason'],
  properties: {
    name: { type: 'string' },
    healthy: { type: 'boolean' },
    reason: { type: ['string', 'null'] },
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
        'Ready only when every component is healthy (answers 503 otherwise, with the same body). Components: event_store, read_store, bus, projections, and the retrieval components embedder, llm, vector_store and reranker; `reason` says why one is not healthy.',
      tags: ['Health'],
      public: true,
      responses: {
        200: {
          description: 'Ready',
          schema: {
            type: 'object',
            required: ['ready', 'components', 'timestamp'],
            properties: {
              ready: { type: 'boolean' },
              components: { type: 'array', items: componentSchema },
              timestamp: dateTime,
            },
          },
        },
        503: { description: 'Not ready: at least one component is unhealthy (same body)' },
      },
      async handle() {
        const components = await deps.health();
        const ready = components.every((component) => component.healthy);
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
        'The statistics this build can compute. Document, source, vector-store and model fields appear with the knowledge base.',
      tags: ['Health'],
      public: true,
      responses: {
        200: {
          description: 'Statistics',
          schema: {
            type: 'object',
            required: ['api_auth_enabled', 'head_position', 'tasks_by_status', 'projections', 'timestamp'],
            properties: {
              api_auth_enabled: { type: 'boolean' },
              head_position: {
                type: 'integer',
                description: 'Global position of the newest event in the event log',
              },
              tasks_by_status: { type: 'object', additionalProperties: { type: 'integer' } },
              projections: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    name: { type: 'string' },
                    state: { type: 'string' },
                    position: { type: 'integer' },
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
        const groups = await deps.readModels.countBy(TASKS, 'status');
        return {
          body: {
            api_auth_enabled: deps.config.apiKeys.length > 0,
            head_position: await deps.eventStore.headPosition(),
            tasks_by_status: Object.fromEntries(groups.map((group) => [String(group.value), group.count])),
            projections: deps.projections
              .status()
              .map(({ name, state, position }) => ({ name, state, position })),
            timestamp: new Date().toISOString(),
          },
        };
      },
    }),
  ];
}
