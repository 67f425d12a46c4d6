import type { Config } from '../../config.js';
import { oneLine, whereIn, type PeopleOptions } from './commandOptions.js';
import type { SearchResult } from './knowledgeClient.js';
import { passageJson, runQuestionCommand } from './questionCommand.js';

export const SEARCH_USAGE = `  search "QUERY"        The best passages for QUERY: title, score, page and section, a one-line
                        excerpt and the document's id (exit 1 when the search fails).
      --limit N         At most N passages (1-50, default 5).
      --url URL, --collection NAME
                        As for ingest: through a server, only one collection.
      --json            Print the results as JSON.`;

const EXCERPT_WIDTH = 160;

/** The search's results for people: numbered, each with where it stands and what it says. */
function resultsText(results: readonly SearchResult[]): string {
  if (results.length === 0) return 'No passage matches.\n';
  return results
    .map((result, index) => {
      const where = whereIn(result);
      return [
        `${index + 1}. ${result.title}  (score ${result.score.toFixed(4)}${where ? `, ${where}` : ''})`,
        `   ${oneLine(result.excerpt, EXCERPT_WIDTH)}`,
        `   doc ${result.docId}  ${result.source}`,
      ].join('\n');
    })
    .join('\n\n')
    .concat('\n');
}

/** `archivist search "QUERY"`: hybrid search over the knowledge base, no answer generated. */
export const searchCommand = (
  config: Config,
  args: readonly string[],
  values: PeopleOptions,
): Promise<number> =>
  runQuestionCommand(config, args, values, {
    name: 'search',
    usage: SEARCH_USAGE,
    maxLimit: 50,
    ask: (client, query, options) => client.search(query, options),
    text: resultsText,
    json: (_query, results: readonly SearchResult[]) => ({
      count: results.length,
      results: results.map((result) => ({ ...passageJson(result), score: result.score })),
    }),
  });
