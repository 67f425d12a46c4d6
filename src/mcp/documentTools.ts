import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { documentFields, documentShape, visibleDocuments, type DocumentFields } from './documents.js';
import { callerOf, type McpDeps, type McpSession } from './mcpContext.js';
import { answered, guarded } from './toolResults.js';

type Args<Shape extends z.ZodRawShape> = z.infer<z.ZodObject<Shape>>;

/** Deep enough for 100 million documents at 100 a page, as the Retrieval API's listing. */
const MAX_PAGE = 1_000_000;

const listInput = {
  page: z.number().int().min(1).max(MAX_PAGE).default(1),
  page_size: z.number().int().min(1).max(100).default(20),
};
const listOutput = {
  documents: z.array(z.object(documentShape)),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
  pages: z.number().int(),
};

const getInput = {
  doc_id: z.string().min(1).max(200),
  max_chars: z
    .number()
    .int()
    .min(0)
    .max(2_000_000)
    .default(50_000)
    .describe('Characters of text to return at most (text_truncated says whether there is more)'),
};
const getOutput = { ...documentShape, text: z.string(), text_truncated: z.boolean() };

const line = (doc: DocumentFields): string =>
  `- ${doc.title || '(untitled)'} — ${doc.doc_id} (${doc.source}; ${doc.collection}; ${doc.chunk_count} chunks; ${doc.created_at})`;

/** `list_documents` and `get_document`: the Retrieval API's /documents, as the user sees them. */
export function registerDocumentTools(server: McpServer, deps: McpDeps, session: McpSession): void {
  const { library } = deps;

  server.registerTool(
    'list_documents',
    {
      title: 'List documents',
      description:
        'The documents you may see, newest first, a page at a time: id, title, source, collection, language, format, size. Their text: get_document, or read the resource at uri. Reads only.',
      inputSchema: listInput,
      outputSchema: listOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(session, 'list_documents', async (args: Args<typeof listInput>) => {
      const { documents, total } = await visibleDocuments(deps, callerOf(session), {
        skip: (args.page - 1) * args.page_size,
        limit: args.page_size,
      });
      const listed = documents.map(documentFields);
      const pages = Math.ceil(total / args.page_size);
      const text =
        listed.length === 0
          ? `No documents on page ${args.page} (${total} in all).`
          : `Page ${args.page} of ${pages} (${total} documents):\n${listed.map(line).join('\n')}`;
      return answered({ documents: listed, total, page: args.page, page_size: args.page_size, pages }, text);
    }),
  );

  server.registerTool(
    'get_document',
    {
      title: 'Get a document',
      description:
        'A stored document you may see: its metadata and its text (as Markdown, its chunks in order), up to max_chars. Reads only.',
      inputSchema: getInput,
      outputSchema: getOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded(session, 'get_document', async (args: Args<typeof getInput>) => {
      const doc = documentFields(await library.document(args.doc_id, callerOf(session)));
      const whole = await library.text(args.doc_id, args.max_chars + 1);
      const text = whole.slice(0, args.max_chars);
      const truncated = whole.length > args.max_chars;
      return answered(
        { ...doc, text, text_truncated: truncated },
        `${line(doc)}\n\n${text}${truncated ? `\n\n[… truncated at ${args.max_chars} characters]` : ''}`,
      );
    }),
  );
}
