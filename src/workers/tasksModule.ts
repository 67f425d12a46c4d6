import type { Bus } from '../bus/bus.js';
import { taskAggregate } from '../commands/aggregates.js';
import { taskSettings } from './taskSettings.js';
import type { ModuleDeclaration, ModuleParts } from '../moduleDeclaration.js';
import { tasksProjection } from '../projections/tasksProjection.js';
import { taskDispatchReactor } from './taskDispatch.js';

/** Background tasks: their aggregate and read model; created tasks are put on the bus. */
export const tasksModule: ModuleDeclaration = {
  name: 'tasks',
  aggregates: [taskAggregate],
  projections: [tasksProjection],
  settings: taskSettings,
};

export function tasksParts(deps: { bus: Bus }): ModuleParts {
  return { reactors: [taskDispatchReactor(deps.bus)] };
}
