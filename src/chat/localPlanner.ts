import { confirmsIt, type ToolResultData } from './turnEvents.js';

/** The tool call the local mode makes for a message, and the arguments it gives. */
export interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * The embedded default has no model that can choose tools, so the local mode chooses by rule
 * (documented in docs/api-notes.md), in English and Arabic: a greeting or a question about the
 * assistant is answered directly; asking to delete or remove the document about X finds X and
 * proposes `delete_document` (a pending action: it runs only once confirmed); asking to add a page
 * by its URL runs `scrape_url`; asking to list documents or tasks, or for statistics, runs that
 * tool; any other message is a question for the knowledge base. The rules are few and visible: every
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

/** The tool a message asks for by the rules above, else a question for the knowledge base. */
export function planLocalCall(message: string, available: ReadonlySet<string>): PlannedCall | null {
  for (const rule of RULES) {
    if (rule.pattern.test(message) && available.has(rule.call.name)) return rule.call;
  }
  if (available.has('query_knowledge')) return { name: 'query_knowledge', arguments: { question: message } };
  return null;
}

/** What the local mode does with a message. */
export type LocalPlan =
  /** Answered directly: a greeting, or what the assistant is and can do. */
  | { kind: 'answer'; text: string }
  /** One tool call; the answer is its result, said plainly. */
  | { kind: 'call'; call: PlannedCall }
  /** The document `subject` names is to be found (`search_knowledge`), then its deletion proposed. */
  | { kind: 'delete'; subject: string };

// A message that is only a greeting (with punctuation, "there").
const GREETING =
  /^(?:(?:hello|hi|hey|hiya|howdy|greetings|good (?:morning|afternoon|evening|day)|مرحبا|مرحباً|أهلا|اهلا|أهلاً|السلام عليكم|صباح الخير|مساء الخير)(?:\s+there)?[\s!.,،؟?…]*)+$/iu;
// Asking what the assistant is or does, alone or after a greeting.
const ABOUT_YOU =
  /^(?:(?:hello|hi|hey|مرحبا|أهلا|اهلا)[\s!.,،]*)?(?:who are you|what are you|what can you do|what do you do|how can you help(?: me)?|help|من أنت|من انت|ماذا تستطيع(?: أن تفعل)?|ماذا يمكنك(?: أن تفعل)?|كيف يمكنك مساعدتي|مساعدة)[\s!.?؟]*$/iu;
const DELETE =
  /^(?:please\s+)?(?:delete|remove|drop|erase)\s+(?:the\s+|a\s+|my\s+)?(?:document|doc|file|page)s?\s+(?:(?:about|on|called|named|titled|for|of)\s+)?["“']?(.+?)["”']?[\s.!?]*$|^(?:من فضلك\s+)?(?:احذف|امسح|أزل|ازل)\s+(?:ال)?(?:مستند|وثيقة|ملف|صفحة)\s+(?:(?:عن|حول|بعنوان|باسم)\s+)?["“«]?(.+?)["”»]?[\s.!؟]*$/iu;
const ADD_URL =
  /\b(?:add|ingest|import|index|scrape|fetch|save|learn)\b.{0,40}?(https?:\/\/[^\s<>"]+)|(?:أضف|اضف|استورد|احفظ|اجلب).{0,40}?(https?:\/\/[^\s<>"]+)/iu;

/** What the assistant says it can do: the tools it may use here, in plain words. */
function capabilities(available: ReadonlySet<string>): string {
  const can = [
    available.has('query_knowledge') && 'answer questions from the knowledge base, with numbered sources',
    available.has('search_knowledge') && 'search its documents',
    available.has('list_documents') && 'list the documents',
    available.has('scrape_url') && 'add a web page by its URL',
    available.has('delete_document') && 'delete a document (once you confirm)',
    available.has('list_tasks') && 'show your background tasks',
    available.has('knowledge_stats') && 'tell how much the knowledge base holds',
  ].filter((item): item is string => typeof item === 'string');
  const intro = 'Hello! I am the assistant of this knowledge base';
  if (can.length === 0) return `${intro}; no tools are enabled for me here.`;
  const list = can.length === 1 ? can[0]! : `${can.slice(0, -1).join(', ')} and ${can.at(-1)!}`;
  return `${intro}. I can ${list}.`;
}

/** What the local mode does with `message`, among the tools it may use; null when nothing fits. */
export function planLocal(message: string, available: ReadonlySet<string>): LocalPlan | null {
  const text = message.trim();
  if (GREETING.test(text) || ABOUT_YOU.test(text)) return { kind: 'answer', text: capabilities(available) };
  const deletion = DELETE.exec(text);
  const subject = (deletion?.[1] ?? deletion?.[2] ?? '').trim();
  if (subject && available.has('delete_document') && available.has('search_knowledge')) {
    return { kind: 'delete', subject };
  }
  const page = ADD_URL.exec(text);
  const url = (page?.[1] ?? page?.[2])?.replace(/[).,;:!?،؟]+$/u, '');
  if (url && available.has('scrape_url')) {
    return { kind: 'call', call: { name: 'scrape_url', arguments: { url } } };
  }
  const call = planLocalCall(text, available);
  return call ? { kind: 'call', call } : null;
}

/**
 * The document a deletion names, from a search for it: the first result whose title contains the
 * subject (case and spacing aside), else the best-ranked result; null when the search found none.
 */
export function documentNamed(
  subject: string,
  results: ReadonlyArray<{ doc_id: string; title?: string | null }>,
): { doc_id: string; title: string | null } | null {
  const fold = (text: string): string => text.toLowerCase().replace(/\s+/g, ' ');
  const wanted = fold(subject);
  const chosen = results.find((result) => result.title && fold(result.title).includes(wanted)) ?? results[0];
  return chosen ? { doc_id: chosen.doc_id, title: chosen.title ?? null } : null;
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
    return `${call.name} runs once ${confirmsIt(outcome.approval)} (action ${outcome.action_id}).`;
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
    case 'delete_document':
      return `Deleted the document ${typeof result['title'] === 'string' ? `"${result['title']}" ` : ''}(${String(result['doc_id'])}).`;
    case 'scrape_url':
      return `The page is being added in the background: task ${String(result['task_id'])}.`;
    case 'knowledge_stats':
      return `The knowledge base holds ${String(result['documents'])} documents in ${String(result['chunks'])} chunks.`;
    default:
      return JSON.stringify(outcome.result);
  }
}
