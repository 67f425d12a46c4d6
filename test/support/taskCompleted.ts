import type { EventStore, RecordedEvent } from '../../src/eventStore/eventStore.js';
import { eventually } from './eventually.js';

/** The task's events once its stream ends with `TaskCompleted` (waits at most `timeoutMs`). */
export function taskCompleted(
  eventStore: Pick<EventStore, 'readStream'>,
  taskId: string,
  timeoutMs: number,
): Promise<RecordedEvent[]> {
  return eventually(async () => {
    const stored = await eventStore.readStream(`task-${taskId}`);
    return stored.at(-1)?.type === 'TaskCompleted' ? stored : undefined;
  }, timeoutMs);
}
