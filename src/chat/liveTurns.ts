import { eventsAfter, unitsOf, type TurnEvent } from './turnEvents.js';

/** How long a finished turn stays in memory for clients that reconnect (after that: from the log). */
const KEEP_ENDED_MS = 60_000;

/** An event with the units a client has read once it has this one: its SSE id. */
export interface FollowedEvent {
  event: TurnEvent;
  units: number;
}

/**
 * A turn running in this process: every event it emitted, for any number of followers, each from
 * where it stands. The turn runs on whether or not anyone follows it.
 */
export class LiveTurn {
  readonly events: TurnEvent[] = [];
  ended = false;
  /** Log position of the turn's latest stored message: a reader of the conversation waits for it. */
  position = 0;
  private wake = new Set<() => void>();

  constructor(
    readonly conversationId: string,
    readonly turnSequence: number,
    readonly turnId: string,
  ) {}

  emit(event: TurnEvent): void {
    if (this.ended) return;
    this.events.push(event);
    if (event.event === 'done' || event.event === 'error') this.ended = true;
    for (const wake of this.wake) wake();
  }

  /** The events after `units`, then each new one as it comes, until the turn ends or `signal` aborts. */
  async *follow(units: number, signal: AbortSignal): AsyncGenerator<FollowedEvent> {
    let read = units;
    let index = 0;
    let seen = 0;
    // Skip what the follower has: whole events by index, then the rest of a cut content event.
    while (index < this.events.length && seen + unitsOf(this.events[index]!) <= read) {
      seen += unitsOf(this.events[index]!);
      index += 1;
    }
    for (;;) {
      while (index < this.events.length) {
        const [event] = eventsAfter([this.events[index]!], read - seen);
        seen += unitsOf(this.events[index]!);
        index += 1;
        if (!event) continue;
        read = seen;
        yield { event, units: read };
      }
      if (this.ended || signal.aborted) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.wake.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.wake.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Resolves when the turn has ended. */
  async finished(): Promise<void> {
    const never = new AbortController().signal;
    for await (const _ of this.follow(0, never)) {
      // Draining: the caller wants the end, not the events.
    }
  }
}

/** The turns of this process, by conversation and turn, kept a minute after they end. */
export function createLiveTurns() {
  const turns = new Map<string, LiveTurn>();
  const key = (conversationId: string, turnSequence: number): string => `${conversationId}:${turnSequence}`;
  return {
    add(turn: LiveTurn): void {
      turns.set(key(turn.conversationId, turn.turnSequence), turn);
    },
    /** Forgets an ended turn later: followers that reconnect soon are served from memory. */
    release(turn: LiveTurn): void {
      setTimeout(() => turns.delete(key(turn.conversationId, turn.turnSequence)), KEEP_ENDED_MS).unref();
    },
    get: (conversationId: string, turnSequence: number): LiveTurn | null =>
      turns.get(key(conversationId, turnSequence)) ?? null,
    get size() {
      return turns.size;
    },
  };
}

export type LiveTurns = ReturnType<typeof createLiveTurns>;
