import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  ListResourcesRequestSchema,
  McpError,
  type ListResourcesResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { NotFoundError } from '../domain/shared/index.js';
import { documentFields, visibleDocuments } from './documents.js';
import { callerOf, documentUri, type McpDeps, type McpSession } from './mcpContext.js';
import { reasonOf } from './toolResults.js';

export const DOCUMENT_URI_TEMPLATE = 'archivist://documents/{doc_id}';
/** Documents per page of `resources/list`. */
export const RESOURCE_PAGE_SIZE = 100;
/** MCP's code for a resource that does not exist (or that the user may not see). */
const RESOURCE_NOT_FOUND = -32002;
const MAX_OFFSET = 100_000_000;
const MARKDOWN = 'text/markdown';

/** The offset a `resources/list` cursor stands for (cursors are ours: the offset of the next page). */
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const offset = /^\d{1,9}$/.test(cursor) ? Number(cursor) : NaN;
  if (!Number.isInteger(offset) || offset > MAX_OFFSET) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid cursor ${JSON.stringify(cursor.slice(0, 40))}`);
  }
  return offset;
}

/** Errors of a resource request as JSON-RPC errors: what a client may know, or that it went wrong. */
function protocolError(session: McpSession, error: unknown, uri: string): McpError {
  if (error instanceof McpError) return error;
  if (error instanceof NotFoundError) return new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`);
  const reason = reasonOf(error);
  if (reason !== null) return new McpError(ErrorCode.InternalError, reason);
  session.log.error({ err: error, uri }, 'MCP resource request failed');
  return new McpError(ErrorCode.InternalError, 'An unexpected error occurred; see the server log');
}

/**
 * The documents the user may see as resources, `archivist://documents/{doc_id}`: listed newest
 * first a page at a time, read as their text (Markdown, their chunks in order, as
 * `GET /documents/{doc_id}` gives it).
 */
export function registerDocumentResources(server: McpServer, deps: McpDeps, session: McpSession): void {
  const { library } = deps;
  server.registerResource(
    'document',
    new ResourceTemplate(DOCUMENT_URI_TEMPLATE, { list: undefined }),
    {
      title: 'Document',
      description: 'A stored document you may see: its text, as Markdown',
      mimeType: MARKDOWN,
    },
    async (uri, variables): Promise<ReadResourceResult> => {
      try {
        const raw = variables['doc_id'];
        const docId = decodeURIComponent((Array.isArray(raw) ? raw[0] : raw) ?? '');
        const doc = await library.document(docId, callerOf(session));
        return { contents: [{ uri: uri.href, mimeType: MARKDOWN, text: await library.text(doc.id) }] };
      } catch (error) {
        throw protocolError(session, error, uri.href);
      }
    },
  );
  // The SDK lists a template's resources in one go, without cursors: documents are many, so this
  // server answers `resources/list` itself, a page at a time (registered after the SDK's own).
  server.server.setRequestHandler(
    ListResourcesRequestSchema,
    async (request): Promise<ListResourcesResult> => {
      const skip = offsetOf(request.params?.cursor);
      try {
        const { documents, total } = await visibleDocuments(deps, callerOf(session), {
          skip,
          limit: RESOURCE_PAGE_SIZE,
        });
        const next = skip + documents.length;
        return {
          resources: documents.map((doc) => {
            const fields = documentFields(doc);
            return {
              uri: documentUri(doc.id),
              name: doc.title || doc.id,
              title: doc.title || doc.id,
              description: `${fields.source} · collection ${fields.collection} · ${fields.language} · ${fields.chunk_count} chunks`,
              mimeType: MARKDOWN,
              annotations: { lastModified: fields.updated_at },
            };
          }),
          ...(documents.length > 0 && next < total ? { nextCursor: String(next) } : {}),
        };
      } catch (error) {
        throw protocolError(session, error, 'resources/list');
      }
    },
  );
}
