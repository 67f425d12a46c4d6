/**
 * Where the NATS bus keeps things. One work-queue stream holds every queue (`<prefix>.jobs.<queue>`)
 * and one limits stream keeps the dead letters (`<prefix>.deadletters.<queue>`); each queue has one
 * durable pull consumer on the jobs stream, named after the queue.
 *
 * One stream rather than one per queue: queues appear with job types (and with every test), and a
 * stream per queue would cost a stream creation and a directory on the server for each; retention,
 * storage and the dedupe window are the same for every queue; and a work-queue stream accepts one
 * consumer per distinct filter subject, which is exactly one durable consumer per queue. The price:
 * msg-id dedupe is per stream, so a job's `Nats-Msg-Id` is its queue and id together.
 */
export interface NatsNames {
  jobsStream: string;
  deadLetterStream: string;
  /** Key-value bucket holding every job id ever enqueued (permanent de-duplication). */
  jobIdsBucket: string;
  jobsSubjects: string;
  deadLetterSubjects: string;
  jobSubject(queue: string): string;
  /** The queue a job subject belongs to; null for a subject outside the jobs stream. */
  queueOf(subject: string): string | null;
  deadLetterStoreSubject(queue: string): string;
  consumerName(queue: string): string;
  /** JetStream announces here when a message of the jobs stream used up its deliveries. */
  maxDeliveriesAdvisory: string;
}

export function natsNames(prefix: string): NatsNames {
  assertSubject(prefix, 'bus prefix');
  // Stream names cannot contain dots (they become directory names on the server).
  const base = prefix.toUpperCase().replace(/[^A-Z0-9_-]/g, '_');
  const jobsStream = `${base}_JOBS`;
  const jobsPrefix = `${prefix}.jobs.`;
  return {
    jobsStream,
    deadLetterStream: `${base}_DEADLETTERS`,
    jobIdsBucket: `${base}_JOB_IDS`,
    jobsSubjects: `${prefix}.jobs.>`,
    deadLetterSubjects: `${prefix}.deadletters.>`,
    jobSubject: (queue) => `${jobsPrefix}${assertQueue(queue)}`,
    queueOf: (subject) => (subject.startsWith(jobsPrefix) ? subject.slice(jobsPrefix.length) : null),
    deadLetterStoreSubject: (queue) => `${prefix}.deadletters.${assertQueue(queue)}`,
    consumerName: (queue) => encodeName(assertQueue(queue)),
    maxDeliveriesAdvisory: `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${jobsStream}.*`,
  };
}

/**
 * Consumer names may not contain `.`, `*`, `>` or path separators. Queue names such as
 * `tasks.ingest` are escaped injectively: letters, digits and `-` stay, every other byte becomes
 * `_XX` (the escape character `_` included), so two queues never share a consumer.
 */
function encodeName(queue: string): string {
  let name = '';
  for (const byte of Buffer.from(queue, 'utf8')) {
    const char = String.fromCharCode(byte);
    name += /[A-Za-z0-9-]/.test(char) ? char : `_${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return name;
}

function assertQueue(queue: string): string {
  assertSubject(queue, 'queue name');
  return queue;
}

/** A literal NATS subject: dot-separated non-empty tokens, no wildcards, no whitespace. */
function assertSubject(value: string, what: string): void {
  const valid =
    value.length > 0 && value.split('.').every((token) => token.length > 0 && !/[\s*>]/.test(token));
  if (!valid) throw new Error(`invalid ${what} '${value}': dot-separated tokens without spaces, * or >`);
}

/** A job as stored in the jobs stream: the id travels in the body (the msg-id header is per queue). */
export function encodeJob(id: string, payload: Record<string, unknown>): string {
  return JSON.stringify({ id, payload });
}

export function decodeJob(data: Uint8Array): { id: string; payload: Record<string, unknown> } | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(data).toString('utf8'));
    if (typeof value !== 'object' || value === null) return null;
    const { id, payload } = value as { id?: unknown; payload?: unknown };
    if (typeof id !== 'string' || typeof payload !== 'object' || payload === null || Array.isArray(payload))
      return null;
    return { id, payload: payload as Record<string, unknown> };
  } catch {
    return null;
  }
}

/** `Nats-Msg-Id` of a job: unique per queue, since one stream holds every queue. */
export function jobMessageId(queue: string, id: string): string {
  // JSON quoting keeps control characters out of the header and the mapping injective.
  return `${queue} ${JSON.stringify(id)}`;
}

/** Key of a job id in the job-ids bucket: keys allow only `[-/_=.A-Za-z0-9]`, so base64url of the pair. */
export function jobIdKey(queue: string, id: string): string {
  return Buffer.from(jobMessageId(queue, id), 'utf8').toString('base64url');
}
