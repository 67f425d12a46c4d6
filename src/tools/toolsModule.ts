import type { ActionCommands, ConversationCommands, TaskCommands } from '../commands/aggregates.js';
import { actionAggregate } from '../commands/aggregates.js';
import { toolSettings } from './toolSettings.js';
import type { ModuleDeclaration, ModuleParts } from '../moduleDeclaration.js';
import { actionsProjection } from '../projections/actionsProjection.js';
import { actionWorkflow } from './actionWorkflow.js';
import type { ToolRegistry } from './registry.js';
import { toolJob } from './toolJob.js';

/** Tools and the actions that wait for a person's confirmation. */
export const toolsModule: ModuleDeclaration = {
  name: 'tools',
  aggregates: [actionAggregate],
  projections: [actionsProjection],
  settings: toolSettings,
};

/** The action workflow, and the job that runs a tool call in a worker. */
export function toolsParts(deps: {
  actions: ActionCommands;
  tasks: TaskCommands;
  conversations: ConversationCommands;
  registry: ToolRegistry;
}): ModuleParts {
  return {
    reactors: [actionWorkflow(deps)],
    jobs: [toolJob(deps.registry)],
  };
}
