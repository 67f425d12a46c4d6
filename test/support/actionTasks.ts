import type { EventStore } from '../../src/eventStore/eventStore.js';

/**
 * The ids of the tasks created to run an action: those whose input names it. An action and its task
 * are linked by the confirmation and the task's input, not by sharing an id.
 */
export async function tasksOfAction(eventStore: EventStore, actionId: string): Promise<string[]> {
  const created = await eventStore.readAll({ filter: { eventTypes: ['TaskCreated'] } });
  return created
    .filter((event) => (event.data['input'] as { actionId?: unknown } | undefined)?.actionId === actionId)
    .map((event) => String(event.data['taskId']));
}
