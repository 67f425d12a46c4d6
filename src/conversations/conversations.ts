import type { ConversationCommands } from '../commands/aggregates.js';
import type { Caller } from '../commands/context.js';
import type { ConversationStatus } from '../domain/conversation/decider.js';
import type { MessageFields, MessageRole } from '../domain/conversation/events.js';
import { NotFoundError } from '../domain/shared/index.js';
import { normalizeForIndex } from '../text/normalize.js';
import type {
  ConversationTextView,
  ConversationView,
  MessageView,
} from '../projections/conversationsProjection.js';
import {
  CONVERSATION_MESSAGES,
  CONVERSATION_TEXT,
  CONVERSATIONS,
  messageKey,
} from '../projections/conversationsProjection.js';
import type { ReadModels } from '../projections/readModels.js';
import { searchTerms } from '../text/searchTerms.js';

export type NewMessage = MessageFields;

export interface SearchHitView {
  conversationId: string;
  title: string | null;
  kind: 'title' | 'message';
  messageId: string | null;
  sequence: number;
  role: MessageRole | null;
  snippet: string;
  score: number;
}

/** Words of context on each side of the first match in a snippet. */
const SNIPPET_CONTEXT_WORDS = 8;
/**
 * A search ranks the owner's newest this many matching titles and messages (the embedded read
 * store; MongoDB ranks all): a word in most of 100,000 messages is then as quick as a rare one.
 */
const RANK_NEWEST = 2_000;
/** Deleted conversations a search leaves out by id; beyond that, later ones are filtered after the page. */
const MAX_EXCLUDED = 1_000;

/**
 * A window of `text` around its first word that matches a query term (after the index's
 * normalisation, prefixes too, as the search matches the last term), with `…` where it was cut.
 */
export function snippetOf(text: string, query: string): string {
  const terms = searchTerms(query, normalizeForIndex);
  const words = text.split(/\s+/u).filter((word) => word.length > 0);
  const hit = words.findIndex((word) => {
    const forms = searchTerms(word, normalizeForIndex);
    return forms.some((form) => terms.some((term) => form.startsWith(term)));
  });
  const at = Math.max(0, hit);
  const start = Math.max(0, at - SNIPPET_CONTEXT_WORDS);
  const end = Math.min(words.length, at + SNIPPET_CONTEXT_WORDS + 1);
  return `${start > 0 ? '… ' : ''}${words.slice(start, end).join(' ')}${end < words.length ? ' …' : ''}`;
}

/**
 * Conversations of the Assistant API: commands on the aggregate (every one checks that the asker
 * owns the conversation) and queries on the read models, always of one owner's conversations.
 */
export function createConversations(deps: {
  commands: ConversationCommands;
  readModels: ReadModels;
  newId: () => string;
  purgeAfterMs: number;
}) {
  const { commands, readModels } = deps;

  /** The owner's conversation as the read model has it; anyone else's is unknown (404). */
  async function owned(owner: string, conversationId: string): Promise<ConversationView> {
    const conversation = await readModels.get<ConversationView>(CONVERSATIONS, conversationId);
    if (!conversation || conversation.owner !== owner) {
      throw new NotFoundError('conversation_not_found', `Conversation ${conversationId} does not exist`);
    }
    return conversation;
  }

  return {
    purgeAfterMs: deps.purgeAfterMs,
    async create(owner: string, title: string | null, caller: Caller) {
      const conversationId = deps.newId();
      const outcome = await commands.execute('CreateConversation', { conversationId, owner, title }, caller);
      return { ...outcome, conversationId };
    },
    /** Appends a message (chat uses this); `messageId` makes a retried append harmless. */
    async append(
      owner: string,
      conversationId: string,
      message: NewMessage & { messageId?: string },
      caller: Caller,
    ) {
      const messageId = message.messageId ?? deps.newId();
      const outcome = await commands.execute(
        'AppendMessage',
        { ...message, conversationId, owner, messageId },
        caller,
      );
      const appended = outcome.appended.find((event) => event.type === 'MessageAppended');
      const sequence =
        appended?.type === 'MessageAppended'
          ? appended.data.sequence
          : outcome.state.status === 'none'
            ? 0
            : outcome.state.messageCount;
      return { ...outcome, messageId, sequence };
    },
    delete: (owner: string, conversationId: string, caller: Caller) =>
      commands.execute('DeleteConversation', { conversationId, owner }, caller),
    restore: (owner: string, conversationId: string, caller: Caller) =>
      commands.execute('RestoreConversation', { conversationId, owner }, caller),
    /** The product's own: purges a conversation deleted at least `purgeAfterMs` ago. */
    purge: (conversationId: string, caller: Caller) =>
      commands.execute('PurgeConversation', { conversationId, purgeAfterMs: deps.purgeAfterMs }, caller),

    get: owned,
    async list(owner: string, options: { status: ConversationStatus; page: number; pageSize: number }) {
      const filter = { owner, status: options.status };
      const [conversations, total] = await Promise.all([
        readModels.find<ConversationView>(CONVERSATIONS, {
          filter,
          sort: [
            ['lastActivityAt', -1],
            ['sequence', -1],
          ],
          skip: (options.page - 1) * options.pageSize,
          limit: options.pageSize,
        }),
        readModels.count(CONVERSATIONS, filter),
      ]);
      return { conversations, total };
    },
    /** Messages `offset + 1 … offset + limit`, oldest first, by key: no scan of the earlier ones. */
    async history(owner: string, conversationId: string, options: { limit: number; offset: number }) {
      const conversation = await owned(owner, conversationId);
      if (conversation.status !== 'Active') {
        throw new NotFoundError('conversation_not_found', `Conversation ${conversationId} does not exist`);
      }
      const last = Math.min(conversation.messageCount, options.offset + options.limit);
      const keys: string[] = [];
      for (let sequence = options.offset + 1; sequence <= last; sequence += 1) {
        keys.push(messageKey(conversationId, sequence));
      }
      const messages = (await readModels.getMany<MessageView>(CONVERSATION_MESSAGES, keys)).sort(
        (a, b) => a.sequence - b.sequence,
      );
      return { conversation, messages, total: conversation.messageCount };
    },
    /**
     * Titles and message bodies of the owner's active conversations matching every term of `query`
     * (the last one as a prefix), best first, with a snippet each.
     */
    async search(owner: string, query: string, options: { page: number; pageSize: number }) {
      const deleted = await readModels.find<ConversationView>(CONVERSATIONS, {
        filter: { owner, status: 'Deleted' },
        sort: [['deletedAt', -1]],
        limit: MAX_EXCLUDED,
      });
      const excluded = deleted.map((conversation) => conversation.id);
      const hits = await readModels.search<ConversationTextView>(CONVERSATION_TEXT, query, {
        filter: { owner, ...(excluded.length > 0 ? { conversationId: { $nin: excluded } } : {}) },
        skip: (options.page - 1) * options.pageSize,
        limit: options.pageSize,
        rankNewest: RANK_NEWEST,
      });
      const conversations = await readModels.getMany<ConversationView>(CONVERSATIONS, [
        ...new Set(hits.map((hit) => hit.doc.conversationId)),
      ]);
      const byId = new Map(conversations.map((conversation) => [conversation.id, conversation]));
      return hits.flatMap(({ doc, score }): SearchHitView[] => {
        const conversation = byId.get(doc.conversationId);
        if (!conversation || conversation.owner !== owner || conversation.status !== 'Active') return [];
        return [
          {
            conversationId: doc.conversationId,
            title: conversation.title,
            kind: doc.kind,
            messageId: doc.messageId,
            sequence: doc.sequence,
            role: doc.role,
            snippet: snippetOf(doc.text, query),
            score,
          },
        ];
      });
    },
  };
}

export type Conversations = ReturnType<typeof createConversations>;
