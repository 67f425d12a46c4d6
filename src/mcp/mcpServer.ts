import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerAssistantTools } from './assistantTools.js';
import { registerDocumentResources } from './documentResources.js';
import { registerDocumentTools } from './documentTools.js';
import { registerIngestTools } from './ingestTools.js';
import type { McpDeps, McpSession } from './mcpContext.js';
import { registerSearchTools } from './searchTools.js';
import { registerTaskTools } from './taskTools.js';

export type { McpDeps, McpSession } from './mcpContext.js';

/**
 * Array elements and object members one call's arguments may hold: far above any tool's needs
 * (a text is one string), far below what would make validating them costly.
 */
const MAX_TOOL_INPUT_ELEMENTS = 10_000;

const INSTRUCTIONS = `Archivist: a knowledge base and an assistant. search finds passages; ask answers from the documents with numbered citations; list_documents, get_document and the archivist://documents/{doc_id} resources give the documents; ingest_url and ingest_text add documents; list_tasks follows background work. Tools named assistant_* are the assistant's own, each with its risk level: a call of a high-risk one only becomes a pending action, which runs once a person confirms it.`;

/**
 * An MCP server for one user: its tools and resources call the use cases the HTTP APIs call, as
 * that user (what they may see, write and confirm). The caller connects it to a transport.
 */
export async function createMcpServer(deps: McpDeps, session: McpSession): Promise<McpServer> {
  const server = new McpServer(
    { name: 'archivist', title: 'Archivist', version: deps.version },
    {
      instructions: INSTRUCTIONS,
      maxToolInputElements: MAX_TOOL_INPUT_ELEMENTS,
      capabilities: { tools: {}, resources: {} },
    },
  );
  registerSearchTools(server, deps, session);
  registerDocumentTools(server, deps, session);
  registerIngestTools(server, deps, session);
  registerTaskTools(server, deps, session);
  await registerAssistantTools(server, deps, session);
  registerDocumentResources(server, deps, session);
  return server;
}
