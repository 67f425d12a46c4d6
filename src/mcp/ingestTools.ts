import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { COLLECTION_NAME, DEFAULT_COLLECTION } from '../domain/collection/events.js';
import { VECTORS_PROJECTION } from '../knowledge/vectorProjector.js';
import { KNOWLEDGE } from '../projections/knowledgeProjection.js';
import { TASKS } from '../projections/tasksProjection.js';
import { callerOf, caughtUp, documentUri, type McpDeps, type McpSession } from './mcpContext.js';
import { answered, guarded, refused } from './toolResults.js';

type Args<Shape extends z.ZodRawShape> = z.infer<z.ZodObject<Shape>>;

/** What a search after an ingestion reads: it waits for them as the upload route does. */
const READ_AFTER_INGEST = [TASKS, KNOWLEDGE, VECTORS_PROJECTION];
/** Characters of text one `ingest_text` takes (about the size of a long book). */
const MAX_TEXT_CHARS = 5_000_000;

const common = {
  collection: z
    .string()
    .regex(COLLECTION_NAME)
    .default(DEFAULT_COLLECTION)
    .describe('Collection the document goes to (one you may write)'),
  skip_duplicates: z
    .boolean()
    .default(true)
    .describe('Skip it when the same source or the same text is stored already'),
  wait: z
    .boolean()
    .default(true)
    .describe(
      'Wait until the document is stored and searchable (true), or answer at once with the task to follow with list_tasks (false)',
    ),
};

const urlInput = {
  url: z
    .string()
    .max(2_048)
    .regex(/^[hH][tT][tT][pP][sS]?:\/\//, 'an http:// or https:// URL'),
  timeout_seconds: z.number().int().min(5).max(120).default(30).describe('Seconds allowed for the fetch'),
  ...common,
};

const textInput = {
  title: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^\r\n]*\S[^\r\n]*$/, 'one line, not blank'),
  text: z
    .string()
    .min(1)
    .max(MAX_TEXT_CHARS)
    .describe('The content, as Markdown (plain text is Markdown too)'),
  section: z.string().min(1).max(200).default('uploaded').describe('Section or category, as for an upload'),
  ...common,
};

const ingestionOutput = {
  status: z
    .enum(['stored', 'duplicate', 'failed', 'started'])
    .describe('started: wait was false, follow task_id with list_tasks'),
  doc_id: z.string().nullable().describe('The stored document (the existing one for a duplicate)'),
  uri: z.string().nullable(),
  title: z.string().nullable(),
  task_id: z.string().nullable(),
  chunks_added: z.number().int().nullable(),
  error: z.string().nullable(),
  ingestion: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("The Retrieval API's ingestion result, when the ingestion ended"),
};

type Ingestion = Record<string, unknown>;

/** An ingestion result (the Retrieval API's) as the tools answer it. */
function ingestionAnswer(result: Ingestion) {
  const text = (key: string): string | null => (typeof result[key] === 'string' ? result[key] : null);
  const duplicate = result['is_duplicate'] === true;
  const status = result['success'] !== true ? 'failed' : duplicate ? 'duplicate' : 'stored';
  const docId = duplicate ? text('existing_doc_id') : text('doc_id');
  const structured = {
    status,
    doc_id: docId,
    uri: docId ? documentUri(docId) : null,
    title: duplicate ? text('existing_doc_title') : text('title'),
    task_id: null,
    chunks_added: typeof result['chunks_added'] === 'number' ? result['chunks_added'] : null,
    error: text('error'),
    ingestion: result,
  };
  if (status === 'failed')
    return refused(`Not stored: ${structured.error ?? 'the ingestion failed'}`, structured);
  const said =
    status === 'duplicate'
      ? `Already stored, not ingested again: ${structured.title ?? ''} (${docId}). ${text('duplicate_message') ?? ''}`
      : `Stored: ${structured.title ?? ''} (${docId}), ${structured.chunks_added ?? 0} chunks; it is searchable now.`;
  return answered(structured, said.trim());
}

/** A task started without waiting. */
function startedAnswer(taskId: string, what: string) {
  return answered(
    {
      status: 'started',
      doc_id: null,
      uri: null,
      title: null,
      task_id: taskId,
      chunks_added: null,
      error: null,
      ingestion: null,
    },
    `Ingesting ${what} as task ${taskId}; follow it with list_tasks (its result names the document once completed).`,
  );
}

/**
 * `ingest_url` and `ingest_text`: the Retrieval API's /scrape and /upload (of a Markdown file),
 * through the same use cases and workers.
 */
export function registerIngestTools(server: McpServer, deps: McpDeps, session: McpSession): void {
  const { library } = deps;

  server.registerTool(
    'ingest_url',
    {
      title: 'Ingest a web page',
      description:
        'Fetches a web page or a document by URL, parses it and stores it in the knowledge base (for every user who may see the collection). Private and internal addresses are refused. Adds only; a stored document is removed by deleting it.',
      inputSchema: urlInput,
      outputSchema: ingestionOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    guarded(session, 'ingest_url', async (args: Args<typeof urlInput>, signal) => {
      const options = {
        collection: args.collection,
        skipDuplicates: args.skip_duplicates,
        timeoutSeconds: args.timeout_seconds,
      };
      const caller = callerOf(session);
      if (!args.wait) {
        const started = await library.startScrape([args.url], options, caller);
        await caughtUp(deps, started.position, [TASKS]);
        return startedAnswer(started.taskId, args.url);
      }
      const { result, position } = await library.scrape(args.url, options, caller, signal);
      await caughtUp(deps, position, READ_AFTER_INGEST);
      return ingestionAnswer(result);
    }),
  );

  server.registerTool(
    'ingest_text',
    {
      title: 'Ingest a text',
      description:
        'Stores a text under a title in the knowledge base, as an upload of a Markdown file <section>/<title>.md would be: parsed, chunked, embedded, then searchable by every user who may see the collection. Adds only.',
      inputSchema: textInput,
      outputSchema: ingestionOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    guarded(session, 'ingest_text', async (args: Args<typeof textInput>, signal) => {
      // The title goes in front matter, which names a Markdown document whatever its first heading
      // (front matter is read line by line, unescaped: the title is one line, written as it is).
      const file = {
        fileName: `${args.title.replace(/[\\/]/g, '-')}.md`,
        bytes: Buffer.from(`---\ntitle: ${args.title.trim()}\n---\n\n${args.text}\n`, 'utf8'),
      };
      const options = {
        section: args.section,
        collection: args.collection,
        skipDuplicates: args.skip_duplicates,
      };
      const caller = callerOf(session);
      if (!args.wait) {
        const started = await library.startUpload(file, options, caller);
        if ('refused' in started) return refused(started.refused);
        await caughtUp(deps, started.position, [TASKS]);
        return startedAnswer(started.taskId, `“${args.title}”`);
      }
      const { result, position } = await library.upload(file, options, caller, signal);
      await caughtUp(deps, position, READ_AFTER_INGEST);
      return ingestionAnswer(result);
    }),
  );
}
