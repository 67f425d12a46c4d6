import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { collectionAggregate } from '../../src/commands/aggregates.js';
import { createCommandService } from '../../src/commands/commandService.js';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { documentSweeper, uniqueName } from '../support/cluster.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';

type Structured = Record<string, unknown>;

/**
 * The MCP server over Streamable HTTP at /mcp, driven by the SDK's own client: the Assistant API's
 * credentials, the knowledge base as tools and resources with citations, the assistant's tools with
 * their risk levels, and a high-risk call that only ever becomes a pending action.
 */
describe('MCP over Streamable HTTP (/mcp) with the SDK client', function () {
  this.timeout(120_000);
  let app: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let endpoint: URL;
  const stored = documentSweeper();
  const title = uniqueName('Lighthouse Keeping Handbook');
  const secretTitle = uniqueName('Vault Inventory Notes');
  const secretCollection = uniqueName('vault');
  let docId: string;
  let secretDocId: string;
  const clients: Client[] = [];

  /** A connected SDK client acting as `user` (no credentials: `null`). */
  async function connect(user: TestUser | null): Promise<Client> {
    const client = new Client({ name: 'archivist-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(endpoint, {
      requestInit: user ? { headers: { Authorization: user.authorization } } : {},
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  async function call(client: Client, name: string, args: Structured): Promise<CallToolResult> {
    return (await client.callTool({ name, arguments: args })) as CallToolResult;
  }

  const textOf = (result: CallToolResult): string =>
    result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

  /** A raw JSON-RPC POST, as a client that is not the SDK's would send it. */
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: alice.authorization,
        ...headers,
      },
      body,
      signal: AbortSignal.timeout(30_000),
    });

  before(async () => {
    app = await startTestApp();
    alice = await addTestUser(app, 'alice');
    bob = await addTestUser(app, 'bob');
    const text = `# ${title}\n\nThe lamp of the northern lighthouse is trimmed at dusk by the keeper, who records the wick length in the green logbook.\n`;
    const uploaded = await app.http
      .post('/api/v1/upload')
      .set('Authorization', alice.authorization)
      .attach('file', Buffer.from(text), `${title}.md`)
      .expect(200);
    docId = stored.keep(uploaded.body as { doc_id: string }).doc_id;

    // A private collection granted to alice alone: bob must not learn of its document.
    const collections = createCommandService(collectionAggregate, {
      eventStore: app.runtime.eventStore,
      clock: () => new Date(),
    });
    const granted = await collections.execute(
      'GrantCollectionAccess',
      { collection: secretCollection, user: alice.name, level: 'write' },
      { actorId: 'test', correlationId: 'grant' },
    );
    expect(await app.runtime.projections.waitFor(granted.position, { timeoutMs: 30_000 })).to.equal(true);
    const secret = await app.http
      .post('/api/v1/upload')
      .set('Authorization', alice.authorization)
      .field('collection', secretCollection)
      .attach(
        'file',
        Buffer.from(`# ${secretTitle}\n\nThe vault holds the quartermaster's brass sextant.\n`),
        `${secretTitle}.md`,
      )
      .expect(200);
    secretDocId = stored.keep(secret.body as { doc_id: string }).doc_id;
    endpoint = new URL(`${(await app.server()).url}/mcp`);
  });
  after(async () => {
    for (const client of clients) await client.close();
    await stored.sweep((id) =>
      app.http.delete(`/api/v1/documents/${id}`).set('Authorization', alice.authorization).expect(200),
    );
    await app.stop();
  });

  it('refuses a client without valid credentials with 401, in JSON-RPC’s error shape', async () => {
    const initialize = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    for (const authorization of [null, 'token nokey:nosecret']) {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          ...(authorization ? { Authorization: authorization } : {}),
        },
        body: initialize,
      });
      expect(response.status).to.equal(401);
      expect(response.headers.get('www-authenticate')).to.include('Token realm="archivist"');
      const body = (await response.json()) as {
        jsonrpc: string;
        id: null;
        error: { code: number; data: Structured };
      };
      expect(body).to.deep.include({ jsonrpc: '2.0', id: null });
      expect(body.error.code).to.equal(-32000);
      expect(body.error.data['status_code']).to.equal(401);
    }
    let refused: unknown = null;
    await connect(null).catch((error: unknown) => (refused = error));
    expect(String(refused)).to.match(/401|authentication/i);
  });

  it('lists the tools, the assistant’s with their risk levels in hints, descriptions and _meta', async () => {
    const client = await connect(alice);
    expect(client.getServerVersion()?.name).to.equal('archivist');
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of [
      'search',
      'ask',
      'list_documents',
      'get_document',
      'ingest_url',
      'ingest_text',
      'list_tasks',
    ]) {
      expect(byName.has(name), name).to.equal(true);
    }
    expect(byName.get('search')!.annotations).to.include({ readOnlyHint: true });
    expect(byName.get('search')!.outputSchema).to.have.property('type', 'object');
    expect(byName.get('ingest_text')!.annotations).to.include({
      readOnlyHint: false,
      destructiveHint: false,
    });

    const deletion = byName.get('assistant_delete_document')!;
    expect(deletion.annotations).to.include({ destructiveHint: true, readOnlyHint: false });
    expect(deletion.description).to.include('Risk level: high').and.include('pending action');
    expect(deletion._meta).to.deep.include({
      'archivist/risk_level': 'high',
      'archivist/requires_confirmation': true,
    });
    expect(deletion.inputSchema.required).to.deep.equal(['doc_id']);
    const search = byName.get('assistant_search_knowledge')!;
    expect(search.annotations).to.include({ readOnlyHint: true, destructiveHint: false });
    expect(search._meta).to.deep.include({ 'archivist/risk_level': 'low' });
    expect(byName.get('assistant_scrape_url')!._meta).to.deep.include({ 'archivist/risk_level': 'medium' });
    // The agent can request actions, never approve them.
    expect([...byName.keys()].filter((name) => /confirm/.test(name))).to.deep.equal([]);
  });

  it('searches and answers from an uploaded document, citing it by id, title, pages and excerpt', async () => {
    const client = await connect(alice);
    const found = await call(client, 'search', { query: 'lighthouse wick logbook', top_k: 3 });
    expect(found.isError ?? false).to.equal(false);
    const results = (found.structuredContent as { results: Structured[] }).results;
    expect(results[0]).to.include({ doc_id: docId, title, uri: `archivist://documents/${docId}` });
    expect(textOf(found)).to.include(title).and.include(docId);

    const asked = await call(client, 'ask', { question: `Who trims the lamp in the ${title}?` });
    const answer = asked.structuredContent as {
      answer: string;
      abstained: boolean;
      citations: Array<{
        index: number;
        doc_id: string;
        title: string;
        page_start: number;
        excerpt: { text: string };
      }>;
    };
    expect(answer.abstained).to.equal(false);
    expect(answer.answer).to.match(/keeper/i);
    const cited = answer.citations.find((citation) => citation.doc_id === docId);
    expect(cited, 'the uploaded document is cited').to.not.equal(undefined);
    expect(cited).to.include({ title, page_start: 1 });
    expect(cited!.excerpt.text).to.match(/keeper|wick|lamp/);
    expect(textOf(asked)).to.include(`[${cited!.index}] ${title}`);
  });

  it('ingests a text as a background task, which list_tasks follows to the stored document', async () => {
    const client = await connect(alice);
    const noteTitle = uniqueName('Harbour Tide Note');
    const started = await call(client, 'ingest_text', {
      title: noteTitle,
      text: 'High tide at the harbour mouth comes forty minutes after the moon crosses the meridian.',
      wait: false,
    });
    const taskId = (started.structuredContent as { task_id: string; status: string }).task_id;
    expect(started.structuredContent).to.include({ status: 'started' });
    const completed = await eventually(
      async () => {
        const listed = await call(client, 'list_tasks', { limit: 50 });
        const tasks = (
          listed.structuredContent as {
            tasks: Array<{ task_id: string; status: string; result: Structured | null }>;
          }
        ).tasks;
        const task = tasks.find((candidate) => candidate.task_id === taskId);
        return task?.status === 'completed' ? task : undefined;
      },
      60_000,
      'the ingestion task completed',
    );
    const newDocId = completed.result!['doc_id'] as string;
    stored.keep({ doc_id: newDocId });
    const fetched = await call(client, 'get_document', { doc_id: newDocId });
    expect(fetched.structuredContent).to.include({
      doc_id: newDocId,
      title: noteTitle,
      text_truncated: false,
    });
    expect((fetched.structuredContent as { text: string }).text).to.include('forty minutes after the moon');

    // Waiting (the default), the answer is the stored document.
    const waited = await call(client, 'ingest_text', {
      title: uniqueName('Harbour Buoy Note'),
      text: 'The red buoy marks the western edge of the dredged channel.',
    });
    expect(waited.structuredContent).to.include({ status: 'stored' });
    stored.keep(waited.structuredContent);
  });

  it('exposes the documents the user may see as resources, listed and read as Markdown', async () => {
    const client = await connect(alice);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).to.include(
      'archivist://documents/{doc_id}',
    );
    const { resources } = await client.listResources();
    const uri = `archivist://documents/${docId}`;
    expect(resources.find((resource) => resource.uri === uri)).to.include({
      name: title,
      mimeType: 'text/markdown',
    });
    const read = await client.readResource({ uri });
    const content = read.contents[0] as { uri: string; text: string; mimeType: string };
    expect(content).to.include({ uri, mimeType: 'text/markdown' });
    expect(content.text).to.include('green logbook');
    let missing: unknown = null;
    await client
      .readResource({ uri: 'archivist://documents/no-such-document' })
      .catch((error: unknown) => (missing = error));
    expect(String(missing)).to.include('Resource not found');
  });

  it('turns a high-risk assistant tool call into a pending action: nothing is deleted', async () => {
    const client = await connect(alice);
    const result = await call(client, 'assistant_delete_document', { doc_id: docId });
    expect(result.isError ?? false).to.equal(false);
    const pending = result.structuredContent as { status: string; action_id: string; approval: string };
    expect(pending).to.include({ status: 'pending', approval: 'self' });
    expect(textOf(result)).to.include('Nothing ran').and.include('stateless').and.include(pending.action_id);
    const actions = await app.http
      .get('/api/method/assistant.api.list_pending_actions')
      .set('Authorization', alice.authorization)
      .expect(200);
    expect(
      (actions.body.message.data.actions as Array<{ action_id: string; tool_name: string }>).map(
        (a) => a.action_id,
      ),
    ).to.include(pending.action_id);
    await app.http.get(`/api/v1/documents/${docId}`).set('Authorization', alice.authorization).expect(200);

    // Low risk runs at once, in a worker, as execute_tool runs it.
    const stats = await call(client, 'assistant_knowledge_stats', {});
    expect(stats.structuredContent).to.include({ status: 'executed' });
    const invalid = await call(client, 'assistant_delete_document', { doc_id: '' });
    expect(invalid.isError).to.equal(true);
  });

  it('keeps a four-eyes action for another user to approve, saying so', async () => {
    const caller = { actorId: 'test', correlationId: 'mcp-approvals' };
    await app.runtime.settings.change('tools.approval', { delete_document: 'other_user' }, 'cli', caller);
    try {
      const client = await connect(alice);
      const result = await call(client, 'assistant_delete_document', { doc_id: docId });
      expect(result.structuredContent).to.include({ status: 'pending', approval: 'other_user' });
      expect(textOf(result)).to.include('a user other than you');
      await app.http.get(`/api/v1/documents/${docId}`).set('Authorization', alice.authorization).expect(200);
    } finally {
      await app.runtime.settings.change('tools.approval', null, 'cli', caller);
    }
  });

  it('shows another user nothing of a private collection’s document', async () => {
    const client = await connect(bob);
    const found = await call(client, 'search', { query: 'quartermaster brass sextant vault' });
    expect(JSON.stringify(found)).to.not.include(secretDocId);
    const listed = await call(client, 'list_documents', { page_size: 100 });
    expect(JSON.stringify(listed)).to.not.include(secretDocId);
    const fetched = await call(client, 'get_document', { doc_id: secretDocId });
    expect(fetched.isError).to.equal(true);
    expect(textOf(fetched)).to.include('document_not_found');
    const { resources } = await client.listResources();
    expect(JSON.stringify(resources)).to.not.include(secretDocId);
    const deletion = await call(client, 'assistant_delete_document', { doc_id: secretDocId });
    expect(deletion.isError).to.equal(true);

    const owner = await connect(alice);
    const mine = await call(owner, 'get_document', { doc_id: secretDocId });
    expect(mine.structuredContent).to.include({ title: secretTitle });
  });

  it('answers malformed requests with a 4xx in JSON-RPC’s error shape, never a 500 or a hang', async () => {
    const shaped = async (response: Response, status: number) => {
      expect(response.status).to.equal(status);
      const body = (await response.json()) as {
        jsonrpc?: string;
        error?: { code?: number; message?: string };
      };
      expect(body.jsonrpc).to.equal('2.0');
      expect(body.error?.code).to.be.a('number');
      expect(body.error?.message).to.be.a('string');
    };
    await shaped(await post('{"jsonrpc":'), 400);
    await shaped(await post('"text"'), 400);
    await shaped(await post('{}', { 'Content-Type': 'text/plain' }), 415);
    await shaped(await post(JSON.stringify({ pad: 'x'.repeat(app.runtime.config.maxJsonBytes + 10) })), 413);
    const deep = await post('['.repeat(100_000) + ']'.repeat(100_000));
    expect(deep.status).to.be.within(400, 499);
    const get = await fetch(endpoint, {
      headers: { Authorization: alice.authorization, Accept: 'text/event-stream' },
    });
    expect(get.headers.get('allow')).to.equal('POST');
    await shaped(get, 405);
    const huge = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'search', arguments: { query: 'x', extra: Array(20_000).fill(1) } },
      }),
    );
    expect(huge.status).to.be.below(500);
  });

  it('counts tool calls, and only them, against the user’s tools rate limit', async () => {
    const limited = await startTestApp({ env: { RATE_LIMIT_TOOLS_PER_MINUTE: '2' } });
    try {
      const carol = await addTestUser(limited, 'carol');
      const url = `${(await limited.server()).url}/mcp`;
      const send = (method: string, params: Structured) =>
        fetch(url, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            Authorization: carol.authorization,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
      const listTasks = { name: 'list_tasks', arguments: {} };
      for (let call = 0; call < 2; call += 1) {
        const allowed = await send('tools/call', listTasks);
        expect(allowed.status).to.equal(200);
        await allowed.text();
      }
      const listed = await send('tools/list', {});
      expect(listed.status).to.equal(200);
      await listed.text();
      const refused = await send('tools/call', listTasks);
      expect(refused.status).to.equal(429);
      expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
      const body = (await refused.json()) as { error: { data: Structured } };
      expect(body.error.data).to.include({ type: 'rate_limited', status_code: 429 });
    } finally {
      await limited.stop();
    }
  });
});
