import { BrandedError } from '../brandedError.js';

/**
 * Messaging between Archivist's processes: durable work queues (jobs that must be done once, by one
 * worker, even across crashes) and pub/sub notifications (fire-and-forget signals such as "new
 * events were appended" or "task X was cancelled").
 *
 * Work-queue semantics follow JetStream's work-queue streams with durable pull consumers, so the
 * NATS adapter maps them one to one: at-least-once delivery; a delivery is leased for `ackWaitMs`
 * and delivered again if it is neither settled nor extended (`working`) in time; `nak(delay)` asks
 * for redelivery after a delay; `term` gives up on the job; after `maxDeliveries` deliveries without
 * an ack the job is dead-lettered. A job id is a de-duplication key for good: a job whose id was
 * ever enqueued on the queue before is ignored (not only within a time window), so an effect keyed
 * by the id of the event that caused it happens once however often it is retried.
 */
export interface Bus {
  /**
   * Stores a job durably on `queue`; resolves once it is stored, with true — or with false when a
   * job with its id was enqueued on the queue before (nothing is stored then).
   */
  enqueue(queue: string, job: Job): Promise<boolean>;
  /** Delivers the queue's jobs to `handler` until the consumer is stopped. */
  consume(queue: string, handler: JobHandler, options?: ConsumeOptions): Consumer;
  /** Jobs given up on, newest first. */
  deadLetters(queue: string, options?: { limit?: number }): Promise<DeadLetter[]>;
  /** Fire-and-forget notification to whoever is subscribed now. */
  publish(subject: string, payload: Record<string, unknown>): void;
  /** `subject` may use NATS wildcards: `*` one token, `>` the rest. */
  subscribe(subject: string, handler: (message: Notification) => void): () => void;
  health(): Promise<{ healthy: boolean; reason: string | null }>;
  close(): Promise<void>;
}

export interface Job {
  /** De-duplication key: a job whose id was ever enqueued on the same queue before is ignored. */
  id: string;
  payload: Record<string, unknown>;
}

export interface ConsumeOptions {
  /** Jobs handled at once by this consumer (default 1). */
  concurrency?: number;
  /** Lease of a delivery (default 30 s). */
  ackWaitMs?: number;
  /** Deliveries before the job is dead-lettered (default 5). */
  maxDeliveries?: number;
  /** Delay before redelivery after the handler threw, by delivery count (last value repeats). */
  retryDelaysMs?: readonly number[];
}

/**
 * Handles one delivery. Settle it with `ack`, `nak` or `term`; a handler that returns without
 * settling acks, and one that throws naks with the consumer's retry delay.
 */
export type JobHandler = (delivery: Delivery) => Promise<void>;

export interface Delivery {
  readonly id: string;
  readonly queue: string;
  readonly payload: Record<string, unknown>;
  /** 1 on the first delivery. */
  readonly deliveryCount: number;
  ack(): Promise<void>;
  nak(delayMs?: number): Promise<void>;
  /** Never deliver this job again; it is dead-lettered with `reason`. */
  term(reason: string): Promise<void>;
  /** Still working on it: renews the lease for another `ackWaitMs`. */
  working(): Promise<void>;
}

export interface Consumer {
  /** Stops taking jobs and waits for the handlers running now to finish. */
  stop(): Promise<void>;
}

export interface DeadLetter {
  queue: string;
  id: string;
  payload: Record<string, unknown>;
  deliveries: number;
  reason: 'max_deliveries' | 'terminated';
  detail: string | null;
  /** ISO 8601. */
  at: string;
}

export interface Notification {
  subject: string;
  payload: Record<string, unknown>;
}

/** Where a bus announces a dead-lettered job of `queue` (payload: the `DeadLetter`). */
export function deadLetterSubject(queue: string): string {
  return `archivist.deadletter.${queue}`;
}

/** The bus cannot be reached. Safe to retry later. */
export class BusUnavailableError extends BrandedError {
  override readonly name = 'BusUnavailableError';
}

/** NATS subject matching: tokens split on `.`, `*` matches one token, a final `>` one or more. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const wanted = pattern.split('.');
  const actual = subject.split('.');
  for (let i = 0; i < wanted.length; i += 1) {
    const token = wanted[i];
    if (token === '>') return i === wanted.length - 1 && actual.length > i;
    if (i >= actual.length) return false;
    if (token !== '*' && token !== actual[i]) return false;
  }
  return wanted.length === actual.length;
}

export const DEFAULT_CONSUME_OPTIONS: Required<ConsumeOptions> = {
  concurrency: 1,
  ackWaitMs: 30_000,
  maxDeliveries: 5,
  retryDelaysMs: [1_000, 5_000, 30_000],
};

export function retryDelay(delaysMs: readonly number[], deliveryCount: number): number {
  return delaysMs[Math.min(deliveryCount - 1, delaysMs.length - 1)] ?? 0;
}
