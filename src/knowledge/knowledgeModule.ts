import { collectionAggregate, documentAggregate, reservationAggregate } from '../commands/aggregates.js';
import { collectionsProjection } from '../projections/collectionsProjection.js';
import type { OptionalComponent } from '../health.js';
import { knowledgeSettings } from './knowledgeSettings.js';
import type { ModuleDeclaration, ModuleParts } from '../moduleDeclaration.js';
import { knowledgeProjection } from '../projections/knowledgeProjection.js';
import type { KnowledgeBase } from './knowledgeBase.js';

/** The knowledge base: documents, their chunks and the read models search uses. */
export const knowledgeModule: ModuleDeclaration = {
  name: 'knowledge',
  // Reservations keep one document per source and content (users claim their names with them too).
  // Collections hold the grants that make some documents private (access.ts).
  aggregates: [documentAggregate, reservationAggregate, collectionAggregate],
  projections: [knowledgeProjection, collectionsProjection],
  settings: knowledgeSettings,
};

/**
 * Its reactors (keys and blobs released), its jobs (upload and scrape ingestion), and the readiness
 * of its models and vector index (each check asks only its own component).
 */
export function knowledgeParts(
  knowledge: KnowledgeBase,
  required: (name: OptionalComponent) => boolean,
): ModuleParts {
  return {
    reactors: knowledge.reactors,
    jobs: knowledge.jobs,
    checks: (['embedder', 'llm', 'vector_store', 'reranker'] as const).map((name) => ({
      name,
      required: required(name),
      check: knowledge.health[name],
    })),
  };
}
