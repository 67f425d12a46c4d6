import type { IngestOutcome, IngestUpdate } from './knowledgeClient.js';

/**
 * The outcome an ingestion task's result says: an upload's result is the Retrieval API's ingestion
 * result; a scrape's holds one per URL in `results` (the CLI scrapes one URL per task).
 */
export function outcomeOfResult(result: Record<string, unknown> | null | undefined): IngestOutcome {
  const results = result?.['results'];
  const ingestion = Array.isArray(results) ? (results[0] as Record<string, unknown> | undefined) : result;
  if (!ingestion) return { status: 'failed', reason: 'the task ended without a result' };
  const text = (key: string): string | null => {
    const value = ingestion[key];
    return typeof value === 'string' && value.length > 0 ? value : null;
  };
  if (ingestion['success'] !== true)
    return { status: 'failed', reason: text('error') ?? 'the ingestion failed without a reason' };
  if (ingestion['is_duplicate'] === true) {
    return {
      status: 'duplicate',
      docId: text('existing_doc_id'),
      title: text('existing_doc_title'),
      reason: text('duplicate_message') ?? 'already stored',
    };
  }
  const docId = text('doc_id');
  if (!docId) return { status: 'failed', reason: 'the ingestion stored no document' };
  return { status: 'added', docId, title: text('title') ?? docId };
}

const STAGES: Record<string, string> = {
  TaskCreated: 'queued',
  TaskStarted: 'started',
  TaskResumed: 'resumed',
  TaskYielded: 'waiting',
};

/**
 * What a task event means for the one following an ingestion: its stage and progress, or its
 * outcome once it ended; null for events that change neither (heartbeats). `data` holds the
 * event's fields, as the task's event stream carries them (the same names on the wire).
 */
export function updateOfTaskEvent(type: string, data: Record<string, unknown>): IngestUpdate | null {
  switch (type) {
    case 'TaskProgressed':
      return {
        kind: 'progress',
        fraction: typeof data['progress'] === 'number' ? data['progress'] : 0,
        stage: typeof data['message'] === 'string' ? data['message'] : 'working',
      };
    case 'TaskCompleted':
      return { kind: 'finished', outcome: outcomeOfResult(data['result'] as Record<string, unknown> | null) };
    case 'TaskFailed':
      return {
        kind: 'finished',
        outcome: { status: 'failed', reason: String(data['error'] ?? 'the ingestion task failed') },
      };
    case 'TaskCancelled':
      return {
        kind: 'finished',
        outcome: {
          status: 'failed',
          reason: `the ingestion task was cancelled${typeof data['reason'] === 'string' ? `: ${data['reason']}` : ''}`,
        },
      };
    default: {
      const stage = STAGES[type];
      return stage ? { kind: 'progress', fraction: 0, stage } : null;
    }
  }
}
