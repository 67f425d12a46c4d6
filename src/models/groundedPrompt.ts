/**
 * The one prompt format for answers grounded in retrieved passages. Remote models read it as
 * instructions; the local extractive model parses it back, so both live here.
 */
export interface Passage {
  title: string;
  text: string;
}

export const GROUNDED_SYSTEM_PROMPT =
  'You answer questions using only the numbered sources the user gives. Cite every claim with the ' +
  "source's number in brackets, like [1]. If the sources do not contain the answer, say that you " +
  'could not find it in the documents. Answer in the language of the question.';

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
