import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { childEnv } from '../support/childEnv.js';
import { documentSweeper, uniqueName } from '../support/cluster.js';
import { runCli } from '../support/runCli.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const root = join(import.meta.dirname, '..', '..');
const cli = join(root, 'src', 'cli', 'main.ts');
/** Starting Archivist from source under tsx takes seconds, more on a loaded machine. */
const START_TIMEOUT_MS = 120_000;

type Structured = Record<string, unknown>;

/** `archivist mcp ARGS` from the source, as an agent would start it, with its standard error kept. */
function spawnMcp(args: string[], env: Record<string, string>) {
  const environment = Object.fromEntries(
    Object.entries(childEnv({ LOG_LEVEL: 'warn', ...env })).filter(
      (entry): entry is [string, string] => entry[1] !== undefined,
    ),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', cli, 'mcp', ...args],
    env: environment,
    cwd: root,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return { transport, stderr: () => stderr };
}

async function call(client: Client, name: string, args: Structured): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as CallToolResult;
}

const textOf = (result: CallToolResult): string =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

/**
 * `archivist mcp`: the stdio transport, with Archivist running in the agent's child process on a
 * local data folder as a named user, asking the user to confirm a high-risk call through the
 * client (elicitation); and as a relay to a running server's /mcp.
 */
describe('archivist mcp (stdio)', function () {
  this.timeout(300_000);

  describe('on a local data folder', () => {
    let dataDir: string;
    let client: Client;
    let stderr: () => string;
    const questions: string[] = [];
    let nextAnswer: 'accept' | 'decline' = 'decline';

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'archivist-mcp-'));
      const added = runCli(['users', 'add', 'alice'], { DATA_DIR: dataDir });
      expect(added.status, added.stderr).to.equal(0);
    });
    after(async () => {
      await client?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('refuses a user the data folder does not know, and a missing user name', () => {
      const unknown = runCli(['mcp', '--user', 'nobody'], { DATA_DIR: dataDir });
      expect(unknown.status).to.equal(2);
      expect(unknown.stderr).to.include('no user named nobody').and.include('archivist users add nobody');
      expect(unknown.stdout).to.equal('');
      const unnamed = runCli(['mcp'], { DATA_DIR: dataDir, ARCHIVIST_USER: '' });
      expect(unnamed.status).to.equal(2);
      expect(unnamed.stderr).to.include('--user NAME');
    });

    it('serves the user over standard input and output, ingesting with its own workers', async () => {
      const spawned = spawnMcp([], { DATA_DIR: dataDir, ARCHIVIST_USER: 'alice' });
      stderr = spawned.stderr;
      client = new Client(
        { name: 'archivist-stdio-test', version: '1.0.0' },
        { capabilities: { elicitation: { form: {} } } },
      );
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        questions.push(request.params.message);
        return nextAnswer === 'accept'
          ? { action: 'accept', content: { confirm: true } }
          : { action: 'decline' };
      });
      await client.connect(spawned.transport, { timeout: START_TIMEOUT_MS }).catch((error: unknown) => {
        throw new Error(`${String(error)}\nstderr:\n${stderr()}`);
      });
      expect(client.getServerVersion()?.name).to.equal('archivist');
      const stored = await call(client, 'ingest_text', {
        title: 'Orchard Pruning Calendar',
        text: 'The pear trees of the east orchard are pruned in the second week of February.',
      });
      expect(stored.structuredContent, textOf(stored)).to.include({
        status: 'stored',
        title: 'Orchard Pruning Calendar',
      });
      const found = await call(client, 'search', { query: 'pear trees pruned February' });
      const results = (found.structuredContent as { results: Array<{ doc_id: string }> }).results;
      expect(results.map((result) => result.doc_id)).to.include(
        (stored.structuredContent as { doc_id: string }).doc_id,
      );
    });

    it('runs a high-risk call once the user confirms it in the client', async () => {
      const target = await call(client, 'ingest_text', {
        title: 'Old Ledger',
        text: 'An old ledger of 1911.',
      });
      const docId = (target.structuredContent as { doc_id: string }).doc_id;
      nextAnswer = 'accept';
      const asked = questions.length;
      const deleted = await call(client, 'assistant_delete_document', { doc_id: docId });
      expect(questions.length).to.equal(asked + 1);
      expect(questions.at(-1)).to.include('Confirm delete_document').and.include(docId);
      expect(deleted.structuredContent, textOf(deleted)).to.include({ status: 'executed' });
      const gone = await call(client, 'get_document', { doc_id: docId });
      expect(gone.isError).to.equal(true);
      expect(textOf(gone)).to.include('document_not_found');
    });

    it('withdraws a high-risk call the user declines: nothing is deleted', async () => {
      const target = await call(client, 'ingest_text', {
        title: 'Keep This Ledger',
        text: 'A ledger of 1912.',
      });
      const docId = (target.structuredContent as { doc_id: string }).doc_id;
      nextAnswer = 'decline';
      const declined = await call(client, 'assistant_delete_document', { doc_id: docId });
      const outcome = declined.structuredContent as { status: string; action_id: string };
      expect(outcome.status, textOf(declined)).to.equal('rejected');
      expect(textOf(declined)).to.include('nothing ran');
      const kept = await call(client, 'get_document', { doc_id: docId });
      expect(kept.structuredContent).to.include({ doc_id: docId, title: 'Keep This Ledger' });
      const tasks = await call(client, 'list_tasks', { limit: 200 });
      const toolTasks = (tasks.structuredContent as { tasks: Array<{ task_type: string }> }).tasks.filter(
        (task) => task.task_type === 'tool',
      );
      // One tool task: the confirmed deletion; the declined one never became a task.
      expect(toolTasks).to.have.length(1);
      expect(stderr()).to.not.match(/"level":"error"/);
    });
  });

  describe('as a relay to a running server (--url)', () => {
    let app: TestApp;
    let alice: TestUser;
    let url: string;
    let dataDir: string;
    const clients: Client[] = [];
    const stored = documentSweeper();
    const title = uniqueName('Beekeeping Almanac');
    let docId: string;

    before(async () => {
      app = await startTestApp();
      alice = await addTestUser(app, 'alice');
      const uploaded = await app.http
        .post('/api/v1/upload')
        .set('Authorization', alice.authorization)
        .attach(
          'file',
          Buffer.from(`# ${title}\n\nThe hives are opened only on warm, windless afternoons.\n`),
          `${title}.md`,
        )
        .expect(200);
      docId = stored.keep(uploaded.body as { doc_id: string }).doc_id;
      url = (await app.server()).url;
      dataDir = mkdtempSync(join(tmpdir(), 'archivist-mcp-relay-'));
    });
    after(async () => {
      for (const client of clients) await client.close();
      await stored.sweep((id) => app.http.delete(`/api/v1/documents/${id}`).expect(200));
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    async function relayed(key: string): Promise<{ client: Client; stderr: () => string }> {
      const spawned = spawnMcp(['--url', url], { DATA_DIR: dataDir, ARCHIVIST_KEY: key });
      const client = new Client({ name: 'archivist-relay-test', version: '1.0.0' });
      clients.push(client);
      await client.connect(spawned.transport, { timeout: START_TIMEOUT_MS });
      return { client, stderr: spawned.stderr };
    }

    it('forwards the client’s requests to /mcp with the key pair, and the answers back', async () => {
      const { client } = await relayed(alice.authorization.replace(/^token /, ''));
      const found = await call(client, 'search', { query: 'hives warm windless afternoons' });
      const results = (found.structuredContent as { results: Array<{ doc_id: string; title: string }> })
        .results;
      expect(results[0]).to.include({ doc_id: docId, title });
    });

    it('answers the client with the server’s refusal of a wrong key', async () => {
      let refused: unknown = null;
      await relayed('nokey:nosecret').catch((error: unknown) => (refused = error));
      expect(String(refused)).to.include('401');
    });
  });
});
