import { useEffect, useState } from 'preact/hooks';
import { assistant, describeError } from './api';
import type { Conversation, ConversationHit } from './wire';
import { ErrorAlert } from './errorAlert';
import { SearchForm } from './searchForm';

type Listing = 'Active' | 'Deleted';

const when = (iso: string | null): string => (iso ? new Date(iso).toLocaleString() : '');

/**
 * The signed-in user's conversations: active or deleted ones, full-text search over titles and
 * messages, delete (restorable until purged) and restore; opening one continues it in Chat.
 */
export function ConversationsView(props: { onOpen: (conversationId: string) => void }) {
  const [listing, setListing] = useState<Listing>('Active');
  const [conversations, setConversations] = useState<Conversation[] | null>(null);
  const [query, setQuery] = useState('');
  const [hits, setHits] = useState<ConversationHit[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    let current = true;
    assistant<{ conversations: Conversation[] }>('GET', 'list_conversations', {
      query: { status: listing, page_size: 100 },
    })
      .then(({ data }) => current && (setConversations(data.conversations), setError(null)))
      .catch((failure: unknown) => current && setError(describeError(failure)));
    return () => {
      current = false;
    };
  }, [listing, reloads]);

  const act = async (work: () => Promise<unknown>, done: string): Promise<void> => {
    try {
      await work();
      setNotice(done);
      setReloads((count) => count + 1);
    } catch (failure) {
      setError(describeError(failure));
    }
  };
  const remove = (conversation: Conversation) =>
    act(
      () =>
        assistant('DELETE', 'delete_conversation', {
          query: { conversation_id: conversation.conversation_id },
        }),
      `Deleted “${conversation.title ?? conversation.conversation_id}”; it can be restored from the deleted ones.`,
    );
  const restore = (conversation: Conversation) =>
    act(
      () =>
        assistant('POST', 'restore_conversation', {
          body: { conversation_id: conversation.conversation_id },
        }),
      `Restored “${conversation.title ?? conversation.conversation_id}”.`,
    );
  const search = async (text: string): Promise<void> => {
    if (!text) {
      setHits(null);
      return;
    }
    try {
      const { data } = await assistant<{ results: ConversationHit[] }>('GET', 'search_conversations', {
        query: { query: text, page_size: 50 },
      });
      setHits(data.results);
    } catch (failure) {
      setError(describeError(failure));
    }
  };

  return (
    <>
      <h1>Conversations</h1>
      <SearchForm
        label="Search titles and messages"
        name="Search conversations"
        query={query}
        setQuery={setQuery}
        onSearch={search}
      />
      <ErrorAlert message={error} />
      {notice && <p role="status">{notice}</p>}
      {hits && (
        <section aria-labelledby="hits-heading">
          <h2 id="hits-heading">{hits.length} matches</h2>
          <ul class="plain results">
            {hits.map((hit, index) => (
              <li key={`${hit.conversation_id}-${index}`}>
                <button type="button" class="link" onClick={() => props.onOpen(hit.conversation_id)}>
                  <span dir="auto">{hit.title ?? hit.conversation_id}</span>
                </button>
                <p class="hint" dir="auto">
                  {hit.match === 'title' ? 'title' : (hit.role ?? 'message')}: {hit.snippet}
                </p>
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="list-heading">
        <h2 id="list-heading">{listing === 'Active' ? 'Your conversations' : 'Deleted conversations'}</h2>
        <fieldset class="toggle">
          <legend>Show</legend>
          {(['Active', 'Deleted'] as const).map((value) => (
            <label key={value} class="inline">
              <input
                type="radio"
                name="listing"
                value={value}
                checked={listing === value}
                onChange={() => setListing(value)}
              />
              {value === 'Active' ? 'Active' : 'Deleted'}
            </label>
          ))}
        </fieldset>
        {conversations && conversations.length === 0 && <p>None.</p>}
        {conversations && conversations.length > 0 && (
          <table>
            <caption class="visually-hidden">Conversations</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Messages</th>
                <th scope="col">{listing === 'Active' ? 'Last activity' : 'Deleted'}</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {conversations.map((conversation) => {
                const title = conversation.title ?? conversation.conversation_id;
                return (
                  <tr key={conversation.conversation_id}>
                    <td dir="auto">{title}</td>
                    <td>{conversation.message_count}</td>
                    <td>
                      {when(listing === 'Active' ? conversation.last_activity_at : conversation.deleted_at)}
                    </td>
                    <td class="actions">
                      {listing === 'Active' ? (
                        <>
                          <button type="button" onClick={() => props.onOpen(conversation.conversation_id)}>
                            Open<span class="visually-hidden"> {title}</span>
                          </button>
                          <button type="button" class="danger" onClick={() => void remove(conversation)}>
                            Delete<span class="visually-hidden"> {title}</span>
                          </button>
                        </>
                      ) : (
                        <button type="button" onClick={() => void restore(conversation)}>
                          Restore<span class="visually-hidden"> {title}</span>
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
