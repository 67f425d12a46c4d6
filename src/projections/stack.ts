import type { EventStore } from '../eventStore/eventStore.js';
import type { Logger } from '../log.js';
import type { ReadStore } from '../readStore/readStore.js';
import { createProjectionEngine, type ProjectionEngine } from './engine.js';
import type { Projection } from './projection.js';
import { createReadModels, type ReadModels } from './readModels.js';
import { createProjectionRegistry, type ProjectionRegistry } from './registry.js';

export interface ProjectionStack {
  registry: ProjectionRegistry;
  readModels: ReadModels;
  engine: ProjectionEngine;
}

/** The read side over a pair of stores: the registry, the read models queries use, and the engine. */
export function createProjectionStack(options: {
  eventStore: EventStore;
  readStore: ReadStore;
  projections: readonly Projection[];
  owner: string;
  log: Logger;
  batchSize?: number;
  leaseTtlMs?: number;
  idleFlushMs?: number;
}): ProjectionStack {
  const registry = createProjectionRegistry(options.readStore, options.projections);
  const readModels = createReadModels(options.readStore, registry);
  const engine = createProjectionEngine({
    eventStore: options.eventStore,
    readStore: options.readStore,
    registry,
    readModels,
    owner: options.owner,
    log: options.log,
    ...(options.batchSize ? { batchSize: options.batchSize } : {}),
    ...(options.leaseTtlMs ? { leaseTtlMs: options.leaseTtlMs } : {}),
    ...(options.idleFlushMs ? { idleFlushMs: options.idleFlushMs } : {}),
  });
  return { registry, readModels, engine };
}
