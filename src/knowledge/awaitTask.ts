import { BusUnavailableError } from '../bus/bus.js';
import type { Caller } from '../commands/context.js';
import type { TaskCommands } from '../commands/aggregates.js';
import { TERMINAL_TASK_EVENTS, taskStream } from '../domain/task/events.js';
import { awaitStreamEvent } from '../eventStore/awaitStreamEvent.js';
import type { EventStore } from '../eventStore/eventStore.js';

export interface FinishedTask {
  status: 'completed' | 'failed' | 'cancelled';
  result: Record<string, unknown> | null;
  error: string | null;
  /** Log position of the event that finished it. */
  position: number;
}

const STATUS: Record<string, FinishedTask['status']> = {
  TaskCompleted: 'completed',
  TaskFailed: 'failed',
  TaskCancelled: 'cancelled',
};

/**
 * How a synchronous request gives up on a task no worker can take: after `withinMs` without a
 * start, while `available` says the work queues are down, `withdraw` cancels the task if it is still
 * pending (true when it did). The request then answers 503 instead of waiting without end.
 */
export interface StartGuard {
  withinMs: number;
  available(): Promise<{ healthy: boolean; reason: string | null }>;
  withdraw(): Promise<boolean>;
}

/** Whether workers can be reached (the bus), and how long a synchronous request waits for a start. */
export interface WorkQueues {
  health(): Promise<{ healthy: boolean; reason: string | null }>;
  startWithinMs: number;
}

/** A synchronous ingestion that no worker can start answers 503 in bounded time: its guard. */
export function startGuard(
  deps: { tasks: Pick<TaskCommands, 'execute'>; workQueues: WorkQueues },
  taskId: string,
  caller: Caller,
): StartGuard {
  return {
    withinMs: deps.workQueues.startWithinMs,
    available: () => deps.workQueues.health(),
    withdraw: async () =>
      (
        await deps.tasks.execute(
          'CancelTask',
          { taskId, reason: 'withdrawn: no worker could start it', onlyIfPending: true },
          caller,
        )
      ).appended.length > 0,
  };
}

const STARTED: ReadonlySet<string> = new Set(['TaskStarted', 'TaskResumed']);

/**
 * Follows a task's own stream until it finishes: how a synchronous endpoint waits for the same
 * worker pipeline an asynchronous one hands back a task id for. Rejects when `signal` aborts (the
 * client went away); the task itself goes on. With a `guard`, a task that no worker starts while
 * the bus is down is withdrawn and the wait rejects with `BusUnavailableError` (a 503).
 */
export async function awaitTask(
  eventStore: Pick<EventStore, 'subscribeToStream'>,
  taskId: string,
  signal: AbortSignal,
  guard?: StartGuard,
): Promise<FinishedTask> {
  const terminal: ReadonlySet<string> = new Set(TERMINAL_TASK_EVENTS);
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let started = false;
  let refused: BusUnavailableError | null = null;
  let checking: Promise<void> | null = null;
  const timer = guard
    ? setInterval(() => {
        if (started || refused || checking) return;
        checking = checkStart(guard)
          .catch(() => undefined)
          .finally(() => (checking = null));
      }, guard.withinMs)
    : null;
  // Read through a function: the loop below must see the value the timer set, not a narrowed one.
  const checkInFlight = (): Promise<void> | null => checking;
  async function checkStart(startGuard: StartGuard): Promise<void> {
    const bus = await startGuard.available().catch((error: unknown) => ({
      healthy: false,
      reason: (error as Error).message,
    }));
    if (bus.healthy || started || refused) return;
    if (!(await startGuard.withdraw())) return;
    refused = new BusUnavailableError(
      `no worker could start the task within ${startGuard.withinMs} ms: ${bus.reason ?? 'the work queues are unavailable'}; it was withdrawn, try again`,
    );
    stop.abort(refused);
  }
  try {
    const end = await awaitStreamEvent(
      eventStore,
      taskStream(taskId),
      (event) => {
        if (STARTED.has(event.type)) started = true;
        return terminal.has(event.type) ? event : undefined;
      },
      stop.signal,
    );
    // Our own withdrawal, seen before it was said: the answer is the refusal, not "cancelled".
    const inFlight = checkInFlight();
    if (end.type === 'TaskCancelled' && inFlight) await inFlight;
    if (refused) throw refused;
    return {
      status: STATUS[end.type]!,
      result: (end.data['result'] as Record<string, unknown> | null | undefined) ?? null,
      error: (end.data['error'] as string | undefined) ?? null,
      position: end.position,
    };
  } catch (error) {
    if (refused) throw refused;
    throw error;
  } finally {
    if (timer) clearInterval(timer);
    signal.removeEventListener('abort', onAbort);
  }
}
