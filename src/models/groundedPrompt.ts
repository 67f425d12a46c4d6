/**
 * The one prompt format for answers grounded in retrieved passages. Remote models read it as
 * instructions; the local extractive model parses it back, so both live here.
 */
export interface Passage {
  title: string;
  text: string;
}

/** What an answer says when the sources do not hold one: the local model's words, and asked of remote ones. */
export const NOT_FOUND_ANSWER = 'I could not find this in the documents.';

export const GROUNDED_SYSTEM_PROMPT =
  'You answer questions using only the numbered sources the user gives. Cite every claim with the ' +
  "source's number in brackets, like [1]. If the sources do not contain the answer, do not guess: " +
  `reply with exactly "${NOT_FOUND_ANSWER}" and nothing else. Otherwise answer in the language of the question.`;

// How models say they found nothing, in English and Arabic, when they do not use the exact sentence.
const REFUSAL =
  /^\W*(?:i (?:could not|couldn't|cannot|can't|did not|didn't) find|the (?:sources|documents|knowledge base) (?:do(?:es)? not|don't|doesn't) (?:say|contain|mention)|(?:there is )?no (?:information|answer)|لم أجد|لا تحتوي المصادر|لا تذكر المصادر)/iu;

/**
 * Whether an answer abstains: it says the sources do not hold the answer (the exact sentence, or a
 * refusal in its own words) and cites nothing.
 */
export function isAbstention(answer: string): boolean {
  const text = answer.trim();
  if (text === '') return true;
  return REFUSAL.test(text) && !/\[\d+\]/.test(text);
}

const SEPARATOR = '\n\n---\n\n';
const QUESTION = 'Question: ';

export function groundedUserMessage(question: string, passages: readonly Passage[]): string {
  const sources = passages.map((passage, index) => `[${index + 1}] ${passage.title}\n${passage.text}`);
  return `Sources:\n\n${sources.join(SEPARATOR)}${SEPARATOR}${QUESTION}${question}`;
}

/** The question and passages of a grounded message; null for any other message. */
export function parseGroundedMessage(message: string): { question: string; passages: Passage[] } | null {
  if (!message.startsWith('Sources:\n\n')) return null;
  const parts = message.slice('Sources:\n\n'.length).split(SEPARATOR);
  const last = parts.pop();
  if (last === undefined || !last.startsWith(QUESTION)) return null;
  const passages = parts.flatMap((part) => {
    const match = /^\[\d+\] ([^\n]*)\n([\s\S]*)$/.exec(part);
    return match ? [{ title: match[1]!, text: match[2]! }] : [];
  });
  return { question: last.slice(QUESTION.length), passages };
}
