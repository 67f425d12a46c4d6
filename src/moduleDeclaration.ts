import type { Settings } from './configuration/variable.js';
import type { HealthCheck } from './health.js';
import type { Projection } from './projections/projection.js';
import type { JobType } from './workers/jobs.js';
import type { Reactor } from './workers/reactors.js';

/**
 * What a module (tasks, knowledge, conversations, tools and actions, users, settings, onboarding)
 * declares of itself before anything is opened: its aggregates, the read models it keeps and its
 * settings. The runtime composes the declarations: the projections the projector runs, and the event
 * types that remove a stream (which the purge reactor acts on); config.ts composes their settings.
 */
export interface ModuleDeclaration {
  name: string;
  /** The aggregates whose commands the module runs (see commands/aggregates.ts). */
  aggregates: ReadonlyArray<{ category: string; purgedBy?: readonly string[] }>;
  /** The projections that keep its read models. */
  projections: readonly Projection[];
  /** The environment variables it reads, and its part of the configuration (composed by config.ts). */
  settings?: Settings<object>;
}

/** What a module brings once wired to its dependencies: its reactors, its jobs, its readiness checks. */
export interface ModuleParts {
  reactors?: readonly Reactor[];
  jobs?: readonly JobType[];
  checks?: readonly HealthCheck[];
}

export function projectionsOf(modules: readonly ModuleDeclaration[]): Projection[] {
  return modules.flatMap((module) => module.projections);
}

/** Event types that record a stream's removal, of every aggregate that has one. */
export function purgeTypesOf(modules: readonly ModuleDeclaration[]): string[] {
  return modules.flatMap((module) => module.aggregates.flatMap((aggregate) => aggregate.purgedBy ?? []));
}

/** The reactors, jobs and checks of every module, in the order the modules were given. */
export function composeParts(parts: readonly ModuleParts[]): Required<ModuleParts> {
  return {
    reactors: parts.flatMap((part) => part.reactors ?? []),
    jobs: parts.flatMap((part) => part.jobs ?? []),
    checks: parts.flatMap((part) => part.checks ?? []),
  };
}
