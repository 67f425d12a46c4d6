import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import supertest from 'supertest';
import { loadConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { silentLogger } from '../../src/log.js';
import { CONVERSATIONS } from '../../src/projections/conversationsProjection.js';
import { TASKS } from '../../src/projections/tasksProjection.js';
import { createRuntime, type Runtime } from '../../src/runtime.js';
import {
  CONVERSATION_PURGE_LEASE,
  createConversationPurgeScheduler,
} from '../../src/workers/conversationPurge.js';
import { filesContaining } from '../support/filesContaining.js';

const API = '/api/method/assistant.api';
const DAY = 86_400_000;

describe('purging deleted conversations', function () {
  this.timeout(60_000);
  let dir: string;
  let now: number;
  const clock = (): Date => new Date(now);
  const open = (): Promise<Runtime> =>
    createRuntime(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', SCRUB_DELAY_MS: '20' }), {
      log: silentLogger,
      clock,
    });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'archivist-convpurge-'));
    now = Date.parse('2026-03-01T12:00:00.000Z');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function settle(runtime: Runtime): Promise<void> {
    const head = await runtime.eventStore.headPosition();
    expect(await runtime.reactors.waitFor(head, 10_000)).to.equal(true);
    expect(await runtime.projections.waitFor(head, { timeoutMs: 10_000 })).to.equal(true);
    await runtime.scrubber.idle();
  }

  it('purges 30 days after deletion and leaves nothing of it under DATA_DIR, after a restart and a rebuild too', async () => {
    const marker = `zqconv${Math.random().toString(36).slice(2, 12)}`;
    const titleMarker = `zqtitle${Math.random().toString(36).slice(2, 12)}`;
    let runtime = await open();
    await runtime.start();
    const http = supertest(createApp(runtime).callback());
    const caller = { actorId: 'test', correlationId: 'test' };
    await runtime.users.add('alice', { admin: false, password: 'alice-password-1' }, caller);
    const authorization = `token ${(await runtime.users.issueKey('alice', caller)).key}`;
    const create = async (title: string): Promise<string> =>
      (
        await http
          .post(`${API}.create_conversation`)
          .set('Authorization', authorization)
          .send({ title })
          .expect(200)
      ).body.message.data.conversation_id as string;
    const alice = { actorId: 'user:alice', correlationId: 'test' };

    const kept = await create('kept conversation');
    await runtime.conversations.append('alice', kept, { role: 'user', content: 'keepsakeword1234' }, alice);
    const doomed = await create(`notes ${titleMarker}`);
    // Enough messages for a snapshot of the conversation's state (which holds the title) to be saved.
    for (let index = 0; index < 210; index += 1) {
      await runtime.conversations.append(
        'alice',
        doomed,
        { role: index % 2 ? 'assistant' : 'user', content: `message ${index} mentions ${marker}` },
        alice,
      );
    }
    await settle(runtime);
    expect(filesContaining(dir, marker)).to.not.deep.equal([]);
    expect(filesContaining(dir, titleMarker)).to.not.deep.equal([]);
    const found = await http
      .get(`${API}.search_conversations`)
      .query({ query: marker })
      .set('Authorization', authorization)
      .expect(200);
    expect(found.body.message.data.results).to.have.length(20);

    await http
      .delete(`${API}.delete_conversation`)
      .query({ conversation_id: doomed })
      .set('Authorization', authorization)
      .expect(200);
    // Not yet due: 29 days and 23 hours later, nothing happens.
    now += 30 * DAY - 3_600_000;
    expect(await runtime.conversationPurge.sweep()).to.deep.equal([]);
    // While another process holds the scheduler's lease, this one does not sweep.
    now += 3_600_000;
    expect(
      await runtime.readStore.acquireLease(CONVERSATION_PURGE_LEASE, 'another-worker', 60_000),
    ).to.not.equal(null);
    expect(await runtime.conversationPurge.sweep()).to.deep.equal([]);
    await runtime.readStore.releaseLease(CONVERSATION_PURGE_LEASE, 'another-worker');
    expect(await runtime.conversationPurge.sweep()).to.deep.equal([doomed]);
    await settle(runtime);

    expect(await runtime.eventStore.readStream(`conversation-${doomed}`)).to.deep.equal([]);
    const record = await runtime.eventStore.readStream(`purged-conversation-${doomed}`);
    expect(record.map((event) => [event.type, event.data])).to.deep.equal([
      ['ConversationPurged', { conversationId: doomed, stream: `conversation-${doomed}` }],
    ]);
    expect(await runtime.readModels.get(CONVERSATIONS, doomed)).to.equal(null);
    expect(await runtime.snapshots.load(`conversation-${doomed}`)).to.equal(null);
    await http
      .get(`${API}.get_conversation_history`)
      .query({ conversation_id: doomed })
      .set('Authorization', authorization)
      .expect(404);
    await http
      .post(`${API}.restore_conversation`)
      .set('Authorization', authorization)
      .send({ conversation_id: doomed })
      .expect(404);
    const trash = await http
      .get(`${API}.list_conversations`)
      .query({ status: 'Deleted' })
      .set('Authorization', authorization)
      .expect(200);
    expect(trash.body.message.data.total).to.equal(0);
    expect(filesContaining(dir, marker)).to.deep.equal([]);
    expect(filesContaining(dir, titleMarker)).to.deep.equal([]);
    // Nothing left to purge.
    expect(await runtime.conversationPurge.sweep()).to.deep.equal([]);
    await runtime.stop();
    expect(filesContaining(dir, marker)).to.deep.equal([]);

    runtime = await open();
    await runtime.start();
    await runtime.projections.rebuild(CONVERSATIONS);
    await settle(runtime);
    expect(await runtime.readModels.get(CONVERSATIONS, doomed)).to.equal(null);
    expect(await runtime.readModels.get(CONVERSATIONS, kept)).to.deep.include({
      status: 'Active',
      messageCount: 1,
    });
    await runtime.stop();
    expect(filesContaining(dir, marker)).to.deep.equal([]);
    expect(filesContaining(dir, titleMarker)).to.deep.equal([]);
    expect(filesContaining(dir, 'keepsakeword1234')).to.not.deep.equal([]);
  });

  it("purges what a chat turn copied elsewhere: the tasks that ran the conversation's tool calls", async () => {
    const marker = `zqchat${Math.random().toString(36).slice(2, 12)}`;
    const runtime = await open();
    await runtime.start();
    const http = supertest(createApp(runtime).callback());
    const caller = { actorId: 'test', correlationId: 'test' };
    await runtime.users.add('alice', { admin: false, password: 'alice-password-1' }, caller);
    const authorization = `token ${(await runtime.users.issueKey('alice', caller)).key}`;
    const answered = await http
      .post(`${API}.chat_with_tools`)
      .set('Authorization', authorization)
      .send({ user_message: `What do the documents say about ${marker}?` })
      .expect(200);
    const { conversation_id: conversationId, tool_calls: calls } = answered.body.message.data as {
      conversation_id: string;
      tool_calls: Array<{ name: string; status: string }>;
    };
    expect(calls.map((call) => [call.name, call.status])).to.deep.equal([['query_knowledge', 'executed']]);
    await settle(runtime);
    // The question is in the tool task's input, outside the conversation's stream.
    const tasks = await runtime.readModels.find<{ id: string; jobType: string }>(TASKS, {
      filter: { jobType: 'tool' },
    });
    expect(tasks).to.have.length(1);
    expect(filesContaining(dir, marker)).to.not.deep.equal([]);

    await http
      .delete(`${API}.delete_conversation`)
      .query({ conversation_id: conversationId })
      .set('Authorization', authorization)
      .expect(200);
    now += 30 * DAY;
    expect(await runtime.conversationPurge.sweep()).to.deep.equal([conversationId]);
    await settle(runtime);
    expect(await runtime.eventStore.readStream(`task-${tasks[0]!.id}`)).to.deep.equal([]);
    expect(await runtime.readModels.get(TASKS, tasks[0]!.id)).to.equal(null);
    await runtime.stop();
    expect(filesContaining(dir, marker)).to.deep.equal([]);
  });

  it('does not purge a conversation restored before it was due', async () => {
    const runtime = await open();
    await runtime.start();
    try {
      const alice = { actorId: 'user:alice', correlationId: 'test' };
      const { conversationId } = await runtime.conversations.create('alice', 'restored later', alice);
      await runtime.conversations.delete('alice', conversationId, alice);
      now += 10 * DAY;
      const restored = await runtime.conversations.restore('alice', conversationId, alice);
      await runtime.projections.waitFor(restored.position);
      now += 60 * DAY;
      expect(await runtime.conversationPurge.sweep()).to.deep.equal([]);
      expect(await runtime.readModels.get(CONVERSATIONS, conversationId)).to.deep.include({
        status: 'Active',
      });
    } finally {
      await runtime.stop();
    }
  });

  it('lets one of several workers sweep at a time, and purges each conversation once', async () => {
    const runtime = await open();
    await runtime.start();
    try {
      const alice = { actorId: 'user:alice', correlationId: 'test' };
      const ids: string[] = [];
      for (let index = 0; index < 3; index += 1) {
        const { conversationId } = await runtime.conversations.create('alice', `doomed ${index}`, alice);
        const deleted = await runtime.conversations.delete('alice', conversationId, alice);
        await runtime.projections.waitFor(deleted.position);
        ids.push(conversationId);
      }
      now += 31 * DAY;
      // Two worker processes: schedulers over the same stores, each its own lease owner.
      const worker = (owner: string) =>
        createConversationPurgeScheduler({
          conversations: runtime.conversations,
          readModels: runtime.readModels,
          leases: runtime.readStore,
          owner,
          clock,
          log: silentLogger,
          intervalMs: 60_000,
        });
      const [first, second] = await Promise.all([worker('worker-1').sweep(), worker('worker-2').sweep()]);
      expect([...first!, ...second!].sort()).to.deep.equal([...ids].sort());
      expect(first!.length === 0 || second!.length === 0).to.equal(true);
      const head = await runtime.eventStore.headPosition();
      expect(await runtime.reactors.waitFor(head, 10_000)).to.equal(true);
      expect(await runtime.projections.waitFor(head)).to.equal(true);
      for (const id of ids) {
        expect(await runtime.eventStore.readStream(`conversation-${id}`)).to.deep.equal([]);
        expect(await runtime.eventStore.readStream(`purged-conversation-${id}`)).to.have.length(1);
      }
      expect(await worker('worker-2').sweep()).to.deep.equal([]);
    } finally {
      await runtime.stop();
    }
  });
});
