import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { COLLECTION_NAME } from '../domain/collection/events.js';
import { citedFocus } from '../knowledge/passage.js';
import { callerOf, type McpDeps, type McpSession } from './mcpContext.js';
import { passage, passageShape, passageText } from './passages.js';
import { answered, guarded } from './toolResults.js';

type Args<Shape extends z.ZodRawShape> = z.infer<z.ZodObject<Shape>>;

const collection = z
  .string()
  .regex(COLLECTION_NAME)
  .optional()
  .describe('Only documents of this collection (default: every collection you may see)');

const searchInput = {
  query: z.string().min(1).max(4_000).describe('What to look for: words, a phrase or a question'),
  top_k: z.number().int().min(1).max(50).default(5).describe('Passages to return, best first'),
  collection,
};
const searchOutput = {
  query: z.string(),
  count: z.number().int(),
  results: z.array(z.object({ ...passageShape, text: z.string().describe("The passage's whole chunk") })),
};

const askInput = {
  question: z.string().min(1).max(4_000),
  top_k: z.number().int().min(1).max(20).default(5).describe('Passages the answer may draw on'),
  collection,
};
const askOutput = {
  question: z.string(),
  answer: z.string().describe('Cites its sources as [n], n being a citation’s index'),
  abstained: z
    .boolean()
    .describe('The documents do not hold the answer; the citations are then the nearest passages'),
  citations: z.array(
    z.object({ index: z.number().int().describe('[index] in the answer'), ...passageShape }),
  ),
};

/** `search` and `ask`: the Retrieval API's /search and /query, over what the user may see. */
export function registerSearchTools(server: McpServer, deps: McpDeps, session: McpSession): void {
  const { library } = deps;
  const filters = (wanted: string | undefined) => (wanted ? { filters: { collection: wanted } } : {});

  server.registerTool(
    'search',
    {
      title: 'Search the knowledge base',
      description:
        'Hybrid semantic and keyword search of the documents you may see: the passages that best match, best first, each with its document, pages, headings and an excerpt. Reads only.',
      inputSchema: searchInput,
      outputSchema: searchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(session, 'search', async (args: Args<typeof searchInput>, signal) => {
      const { hits } = await library.search(
        {
          query: args.query,
          topK: args.top_k,
          initialK: Math.max(20, args.top_k),
          ...filters(args.collection),
          signal,
        },
        callerOf(session),
      );
      const results = hits.map((hit) => ({ ...passage(hit, args.query), text: hit.chunk.text }));
      const text =
        results.length === 0
          ? `Nothing found for “${args.query}”.`
          : results.map((result, at) => passageText(`${at + 1}.`, result)).join('\n');
      return answered({ query: args.query, count: results.length, results }, text);
    }),
  );

  server.registerTool(
    'ask',
    {
      title: 'Ask the knowledge base',
      description:
        'Answers a question from the documents you may see, citing them as numbered sources [n]: each citation gives the document id, title, pages, headings and the excerpt the answer drew on. Says so when the documents do not hold the answer. Reads only.',
      inputSchema: askInput,
      outputSchema: askOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(session, 'ask', async (args: Args<typeof askInput>, signal) => {
      const answer = await library.answer(
        {
          question: args.question,
          topK: args.top_k,
          initialK: Math.max(20, args.top_k),
          temperature: null,
          ...filters(args.collection),
          signal,
        },
        callerOf(session),
      );
      const citations = answer.hits.map((hit, index) => ({
        index: index + 1,
        ...passage(hit, citedFocus(answer.answer, index, args.question)),
      }));
      const sources =
        citations.length === 0
          ? ''
          : `\n\nSources:\n${citations.map((citation) => passageText(`[${citation.index}]`, citation)).join('\n')}`;
      return answered(
        { question: answer.question, answer: answer.answer, abstained: answer.abstained, citations },
        `${answer.answer}${sources}`,
      );
    }),
  );
}
