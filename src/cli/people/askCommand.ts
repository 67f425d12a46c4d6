import type { Config } from '../../config.js';
import { oneLine, whereIn, type PeopleOptions } from './commandOptions.js';
import type { AnswerWithCitations } from './knowledgeClient.js';
import { passageJson, runQuestionCommand } from './questionCommand.js';

export const ASK_USAGE = `  ask "QUESTION"        An answer from the stored documents, then its numbered citations (title, page
                        and section, excerpt); says so plainly when the documents do not hold the
                        answer (exit 0 either way; 1 when the question cannot be answered at all).
      --limit N         Passages the answer is drawn from, at most (1-20, default 5).
      --url URL, --collection NAME
                        As for ingest: through a server, only one collection.
      --json            Print the answer and its citations as JSON.`;

const EXCERPT_WIDTH = 200;

function citationsText(passages: AnswerWithCitations['citations']): string[] {
  return passages.map((passage, index) => {
    const where = whereIn(passage);
    return [
      `[${index + 1}] ${passage.title}${where ? ` (${where})` : ''}`,
      `    "${oneLine(passage.excerpt, EXCERPT_WIDTH)}"`,
      `    doc ${passage.docId}  ${passage.source}`,
    ].join('\n');
  });
}

/** The answer for people: what it says, then what it cites; an abstention says so first. */
function answerText(answer: AnswerWithCitations): string {
  if (answer.abstained) {
    const nearest =
      answer.citations.length > 0 ? ['', 'Nearest passages:', ...citationsText(answer.citations)] : [];
    return `${['The documents do not answer this question.', ...nearest].join('\n')}\n`;
  }
  const sources = answer.citations.length > 0 ? ['', 'Sources:', ...citationsText(answer.citations)] : [];
  return `${[answer.answer.trim(), ...sources].join('\n')}\n`;
}

/** `archivist ask "QUESTION"`: a retrieval-augmented answer with its citations. */
export const askCommand = (config: Config, args: readonly string[], values: PeopleOptions): Promise<number> =>
  runQuestionCommand(config, args, values, {
    name: 'ask',
    usage: ASK_USAGE,
    maxLimit: 20,
    ask: (client, question, options) => client.ask(question, options),
    text: answerText,
    json: (question, answer: AnswerWithCitations) => ({
      question,
      answer: answer.answer,
      abstained: answer.abstained,
      citations: answer.citations.map((passage, index) => ({ number: index + 1, ...passageJson(passage) })),
    }),
  });
