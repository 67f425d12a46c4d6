import type { ToolResultData } from './turnEvents.js';

/** The tool call the local mode makes for a message, and the arguments it gives. */
export interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * The embedded default has no model that can choose tools, so the local mode chooses by rule
 * (documented in docs/api-notes.md): asking to list documents or tasks, or for statistics, runs that
 * tool; any other message is a question for the knowledge base. The rules are few and visible: the
 * call made is recorded and returned like a model's.
 */
const RULES: ReadonlyArray<{ pattern: RegExp; call: PlannedCall }> = [
  {
    pattern:
      /\b(list|show)\b.{0,20}\b(documents|docs|files)\b|\b(which|what) (documents|docs|files)\b.{0,30}\b(have|are there|exist|stored|available)\b|(اعرض|قائمة).{0,20}(المستندات|الوثائق)/iu,
    call: { name: 'list_documents', arguments: {} },
  },
  {
    pattern:
      /\b(list|show)\b.{0,20}\b(tasks|jobs)\b|\b(my|running) (tasks|jobs)\b|(اعرض|قائمة).{0,20}المهام/iu,
    call: { name: 'list_tasks', arguments: {} },
  },
  {
    pattern: /\b(stats|statistics|how many (documents|chunks))\b|إحصا/iu,
    call: { name: 'knowledge_stats', arguments: {} },
  },
];

export function planLocalCall(message: string, available: ReadonlySet<string>): PlannedCall | null {
  for (const rule of RULES) {
    if (rule.pattern.test(message) && available.has(rule.call.name)) return rule.call;
  }
  if (available.has('query_knowledge')) return { name: 'query_knowledge', arguments: { question: message } };
  return null;
}

/** How many listed items an answer names before it says how many more there are. */
const LISTED = 10;

function listed<T>(items: readonly T[], total: number, noun: string, line: (item: T) => string): string {
  if (items.length === 0) return `There are no ${noun}.`;
  const lines = items.slice(0, LISTED).map((item) => `- ${line(item)}`);
  const more = total - Math.min(items.length, LISTED);
  return `${total} ${noun}:\n${lines.join('\n')}${more > 0 ? `\n…and ${more} more.` : ''}`;
}

/**
 * The local mode's answer: what the tool found, said plainly. A knowledge answer is the extractive
 * answer with its numbered citations; a listing names its items; a failure says what failed.
 */
export function localAnswer(call: PlannedCall, outcome: ToolResultData): string {
  if (outcome.requires_confirmation) {
    return `${call.name} needs your confirmation before it runs (action ${outcome.action_id}).`;
  }
  if (!outcome.success) {
    return `The tool ${call.name} failed: ${outcome.error?.message ?? 'unknown error'}.`;
  }
  const result = (outcome.result ?? {}) as Record<string, unknown>;
  switch (call.name) {
    case 'query_knowledge':
      return typeof result['answer'] === 'string' ? result['answer'] : '';
    case 'list_documents': {
      const documents = (result['documents'] ?? []) as Array<{ doc_id: string; title?: string | null }>;
      const total = typeof result['total'] === 'number' ? result['total'] : documents.length;
      return listed(documents, total, 'documents', (doc) => `${doc.title ?? doc.doc_id} (${doc.doc_id})`);
    }
    case 'list_tasks': {
      const tasks = (result['tasks'] ?? []) as Array<{ task_id: string; job_type: string; status: string }>;
      const total = typeof result['total'] === 'number' ? result['total'] : tasks.length;
      return listed(tasks, total, 'tasks', (task) => `${task.job_type} ${task.task_id}: ${task.status}`);
    }
    case 'knowledge_stats':
      return `The knowledge base holds ${String(result['documents'])} documents in ${String(result['chunks'])} chunks.`;
    default:
      return JSON.stringify(outcome.result);
  }
}
