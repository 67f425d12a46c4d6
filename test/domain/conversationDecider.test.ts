import type { ConversationCommand } from '../../src/domain/conversation/commands.js';
import { conversationDecider } from '../../src/domain/conversation/decider.js';
import { conversationEvents, type ConversationEvent } from '../../src/domain/conversation/events.js';
import { expect } from 'chai';
import { spec } from '../../src/domain/shared/deciderSpec.js';
import type { Metadata } from '../../src/domain/shared/index.js';

const DAY = 86_400_000;
const at = (now: string): Metadata => ({ now, actorId: 'user:alice', correlationId: 'c1' });
const metadata = at('2026-11-24T10:00:00.000Z');
const conversationId = 'c-1';
const command = <T extends ConversationCommand['type']>(
  type: T,
  data: Extract<ConversationCommand, { type: T }>['data'],
  meta: Metadata = metadata,
): ConversationCommand => ({ type, data, metadata: meta }) as ConversationCommand;

const created = {
  type: 'ConversationCreated',
  data: { conversationId, owner: 'alice', title: 'Trip' },
} as const;
const message = (sequence: number, messageId = `m${sequence}`) =>
  ({
    type: 'MessageAppended',
    data: { conversationId, messageId, sequence, role: 'user', content: `hello ${sequence}` },
  }) as const;
const deletedAt = (now: string): ConversationEvent => ({
  type: 'ConversationDeleted',
  data: { conversationId },
  metadata: at(now),
});
const deleted = { type: 'ConversationDeleted', data: { conversationId } } as const;
const restored = { type: 'ConversationRestored', data: { conversationId } } as const;

describe('conversation decider', () => {
  const conversation = spec(conversationDecider);

  it('creates a conversation for its owner; the same creation again is nothing to do', () => {
    conversation
      .given([])
      .when(command('CreateConversation', { conversationId, owner: 'alice', title: 'Trip' }))
      .then([created]);
    conversation
      .given([created])
      .when(command('CreateConversation', { conversationId, owner: 'alice', title: 'Trip' }))
      .then([]);
    conversation
      .given([created])
      .when(command('CreateConversation', { conversationId, owner: 'bob', title: 'Trip' }))
      .thenThrows('conversation_exists');
  });

  it('numbers messages 1, 2, 3… and keeps tool calls, tool results and attachment references', () => {
    conversation
      .given([created])
      .when(
        command('AppendMessage', {
          conversationId,
          owner: 'alice',
          messageId: 'm1',
          role: 'user',
          content: 'hello 1',
        }),
      )
      .then([message(1)]);
    const toolCalls = [{ id: 'call-1', name: 'search', arguments: { query: 'x' } }];
    const attachments = [
      { sha256: 'ab'.repeat(32), name: 'a.pdf', mimeType: 'application/pdf', sizeBytes: 3 },
    ];
    conversation
      .given([created, message(1)])
      .when(
        command('AppendMessage', {
          conversationId,
          owner: 'alice',
          messageId: 'm2',
          role: 'assistant',
          content: '',
          toolCalls,
          attachments,
        }),
      )
      .then([
        {
          type: 'MessageAppended',
          data: {
            conversationId,
            messageId: 'm2',
            sequence: 2,
            role: 'assistant',
            content: '',
            toolCalls,
            attachments,
          },
        },
      ]);
    const toolResult = { toolCallId: 'call-1', name: 'search', success: true };
    conversation
      .given([created, message(1), message(2)])
      .when(
        command('AppendMessage', {
          conversationId,
          owner: 'alice',
          messageId: 'm3',
          role: 'tool',
          content: '{"hits":[]}',
          toolResult,
        }),
      )
      .then([
        {
          type: 'MessageAppended',
          data: {
            conversationId,
            messageId: 'm3',
            sequence: 3,
            role: 'tool',
            content: '{"hits":[]}',
            toolResult,
          },
        },
      ]);
  });

  it('takes a retried append of the latest message as nothing to do', () => {
    conversation
      .given([created, message(1)])
      .when(
        command('AppendMessage', {
          conversationId,
          owner: 'alice',
          messageId: 'm1',
          role: 'user',
          content: 'hello 1',
        }),
      )
      .then([]);
  });

  it("answers another user's conversation, and an unknown one, as not found", () => {
    for (const cmd of [
      command('AppendMessage', { conversationId, owner: 'bob', messageId: 'x', role: 'user', content: 'hi' }),
      command('DeleteConversation', { conversationId, owner: 'bob' }),
      command('RestoreConversation', { conversationId, owner: 'bob' }),
    ]) {
      conversation.given([created]).when(cmd).thenThrows('conversation_not_found');
      conversation.given([]).when(cmd).thenThrows('conversation_not_found');
    }
  });

  it('deletes softly and restores; repeating either is nothing to do', () => {
    conversation
      .given([created])
      .when(command('DeleteConversation', { conversationId, owner: 'alice' }))
      .then([deleted]);
    conversation
      .given([created, deleted])
      .when(command('DeleteConversation', { conversationId, owner: 'alice' }))
      .then([]);
    conversation
      .given([created, deleted])
      .when(command('RestoreConversation', { conversationId, owner: 'alice' }))
      .then([restored]);
    conversation
      .given([created])
      .when(command('RestoreConversation', { conversationId, owner: 'alice' }))
      .then([]);
  });

  it('refuses new messages in a deleted conversation', () => {
    conversation
      .given([created, deleted])
      .when(
        command('AppendMessage', {
          conversationId,
          owner: 'alice',
          messageId: 'm9',
          role: 'user',
          content: 'x',
        }),
      )
      .thenThrows('conversation_deleted');
  });

  it('purges a conversation only once it has been deleted for the purge period, with a content-free record', () => {
    const purge = (now: string) =>
      command(
        'PurgeConversation',
        { conversationId, purgeAfterMs: 30 * DAY },
        { ...at(now), actorId: 'system:conversation-purge' },
      );
    conversation
      .given([created])
      .when(purge('2027-01-01T00:00:00.000Z'))
      .thenThrows('conversation_not_deleted');
    conversation
      .given([created, deletedAt('2026-11-01T00:00:00.000Z')])
      .when(purge('2026-11-30T23:59:59.999Z'))
      .thenThrows('purge_not_due');
    conversation
      .given([created, message(1), deletedAt('2026-11-01T00:00:00.000Z')])
      .when(purge('2026-12-01T00:00:00.000Z'))
      .then([
        { type: 'ConversationPurged', data: { conversationId, stream: `conversation-${conversationId}` } },
      ]);
    // Restored meanwhile: the deletion no longer counts.
    conversation
      .given([created, deletedAt('2026-11-01T00:00:00.000Z'), restored])
      .when(purge('2027-01-01T00:00:00.000Z'))
      .thenThrows('conversation_not_deleted');
    conversation.given([]).when(purge('2027-01-01T00:00:00.000Z')).thenThrows('conversation_not_found');
  });
});

describe('conversation events', () => {
  it('read the capitalised action status of version 1 messages in lower case, as every status is spelled now', () => {
    const stored = {
      type: 'MessageAppended',
      data: {
        ...message(3).data,
        role: 'assistant',
        action: { actionId: 'a-1', status: 'Executed', toolCallId: 'call_1' },
      },
      metadata,
    };
    const decoded = conversationEvents.decode(stored);
    expect(decoded.type === 'MessageAppended' && decoded.data.action).to.deep.equal({
      actionId: 'a-1',
      status: 'executed',
      toolCallId: 'call_1',
    });
    const current = conversationEvents.stamp('MessageAppended', metadata);
    expect(conversationEvents.decode({ ...stored, metadata: current }).data).to.have.nested.property(
      'action.status',
      'Executed',
    );
  });
});
