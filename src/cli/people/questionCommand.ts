import type { Config } from '../../config.js';
import { collectionOption, EXIT, exitStatusOf, integerOption, type PeopleOptions } from './commandOptions.js';
import type { KnowledgeClient, Passage, SearchOptions } from './knowledgeClient.js';
import { openKnowledgeClient } from './openKnowledgeClient.js';
import { UsageError } from '../usageError.js';

/** What `search` and `ask` differ in: what they ask the knowledge base and how they print it. */
export interface QuestionCommand<T> {
  name: string;
  usage: string;
  /** The most passages `--limit` may ask for. */
  maxLimit: number;
  ask(client: KnowledgeClient, text: string, options: SearchOptions): Promise<T>;
  text(result: T): string;
  json(text: string, result: T): unknown;
}

/**
 * `search` and `ask`: the arguments are the text, `--limit` (default 5) and `--collection` bound
 * it, the answer goes to standard output as text or `--json`. Exit status 0 answered, 1 the request
 * failed, 2 wrong usage or unreachable.
 */
export async function runQuestionCommand<T>(
  config: Config,
  args: readonly string[],
  values: PeopleOptions,
  command: QuestionCommand<T>,
): Promise<number> {
  let client: KnowledgeClient | null = null;
  try {
    const text = args.join(' ').trim();
    if (!text)
      throw new UsageError(`${command.name} needs a ${command.name === 'ask' ? 'QUESTION' : 'QUERY'}`);
    const limit = integerOption(values.limit, 'limit', { min: 1, max: command.maxLimit, fallback: 5 });
    const collection = collectionOption(values.collection);
    client = await openKnowledgeClient(config, values.url, { mustExist: true });
    const result = await command.ask(client, text, { limit, ...collection });
    process.stdout.write(
      values.json ? `${JSON.stringify(command.json(text, result), null, 2)}\n` : command.text(result),
    );
    return EXIT.ok;
  } catch (error) {
    return exitStatusOf(error, command.usage);
  } finally {
    await client?.close();
  }
}

/** A passage as `--json` prints it: the Retrieval API's snake_case names. */
export const passageJson = (passage: Passage) => ({
  doc_id: passage.docId,
  title: passage.title,
  source: passage.source,
  section: passage.section,
  section_path: passage.sectionPath,
  page_start: passage.pageStart,
  page_end: passage.pageEnd,
  excerpt: passage.excerpt,
});
