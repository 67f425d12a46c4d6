import { useEffect, useRef, useState } from 'preact/hooks';
import { assistant, describeError } from './api';
import { CitationDialog, CitedText, SourceList } from './citation';
import { ActionDecision, PendingActions } from './pendingActions';
import type { Citation, HistoryMessage } from './wire';
import { ErrorAlert } from './errorAlert';

interface ToolCallView {
  id: string;
  name: string;
  arguments: unknown;
  state: 'running' | 'done' | 'failed' | 'pending_confirmation';
  detail: string | null;
  actionId: string | null;
}

interface Turn {
  key: string;
  role: 'user' | 'assistant';
  text: string;
  tools: ToolCallView[];
  citations: Citation[];
  streaming: boolean;
  error: string | null;
}

type Payload = Record<string, unknown>;

const payloadOf = (event: Event): Payload | null => {
  const data = (event as MessageEvent<unknown>).data;
  if (typeof data !== 'string') return null;
  try {
    return JSON.parse(data) as Payload;
  } catch {
    return null;
  }
};

const brief = (value: unknown): string => {
  const text = JSON.stringify(value) ?? '';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

function ToolCalls(props: { tools: readonly ToolCallView[]; onDecided: () => void }) {
  if (props.tools.length === 0) return null;
  return (
    <ul class="plain tools" aria-label="Tool calls">
      {props.tools.map((tool) => (
        <li key={tool.id} class={`tool ${tool.state}`}>
          <p>
            <span class="badge">{tool.state.replace('_', ' ')}</span> <code>{tool.name}</code>{' '}
            <span class="hint">{brief(tool.arguments)}</span>
          </p>
          {tool.detail && <p class="hint">{tool.detail}</p>}
          {tool.actionId && (
            <ActionDecision
              actionId={tool.actionId}
              summary={`${tool.name} ${brief(tool.arguments)}`}
              onDecided={props.onDecided}
            />
          )}
        </li>
      ))}
    </ul>
  );
}

const fromHistory = (messages: readonly HistoryMessage[]): Turn[] =>
  messages
    .filter((message) => message.role !== 'tool' && message.content.trim() !== '')
    .map((message) => ({
      key: message.message_id,
      role: message.role === 'user' ? 'user' : 'assistant',
      text: message.content,
      tools: [],
      citations: [],
      streaming: false,
      error: null,
    }));

/**
 * A conversation with the assistant, its answer streamed as it is written (`stream_ai_response`):
 * tool calls appear as they start and end, and a high-risk call that waits for confirmation gets
 * Approve and Reject buttons right there.
 */
export function ChatView(props: {
  conversationId: string | null;
  onConversation: (id: string | null) => void;
}) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<{ turn: string; index: number } | null>(null);
  const [refreshPending, setRefreshPending] = useState(0);
  const stream = useRef<EventSource | null>(null);
  const counter = useRef(0);

  // The conversation this view's own stream started: its turns are on screen already, richer
  // (tool calls, approvals) than the history would show them.
  const streamed = useRef<string | null>(null);

  useEffect(() => () => stream.current?.close(), []);
  useEffect(() => {
    if (!props.conversationId || props.conversationId === streamed.current) return;
    let current = true;
    assistant<{ messages: HistoryMessage[] }>('GET', 'get_conversation_history', {
      query: { conversation_id: props.conversationId, limit: 200 },
    })
      .then(({ data }) => current && setTurns(fromHistory(data.messages)))
      .catch((failure: unknown) => current && setError(describeError(failure)));
    return () => {
      current = false;
    };
  }, [props.conversationId]);

  const changeTurn = (key: string, change: (turn: Turn) => Turn): void =>
    setTurns((all) => all.map((turn) => (turn.key === key ? change(turn) : turn)));
  const changeTool = (key: string, id: string, change: (tool: ToolCallView) => ToolCallView): void =>
    changeTurn(key, (turn) => ({
      ...turn,
      tools: turn.tools.map((tool) => (tool.id === id ? change(tool) : tool)),
    }));

  const send = (event: Event): void => {
    event.preventDefault();
    const prompt = message.trim();
    if (!prompt || busy) return;
    setError(null);
    setBusy(true);
    setMessage('');
    counter.current += 1;
    const key = `turn-${counter.current}`;
    setTurns((all) => [
      ...all,
      {
        key: `${key}-user`,
        role: 'user',
        text: prompt,
        tools: [],
        citations: [],
        streaming: false,
        error: null,
      },
      { key, role: 'assistant', text: '', tools: [], citations: [], streaming: true, error: null },
    ]);
    const query = new URLSearchParams({ prompt });
    if (props.conversationId) query.set('conversation_id', props.conversationId);
    const source = new EventSource(`/api/method/assistant.api.stream_ai_response?${query.toString()}`, {
      withCredentials: true,
    });
    stream.current = source;
    const finish = (): void => {
      source.close();
      setBusy(false);
      changeTurn(key, (turn) => ({ ...turn, streaming: false }));
    };
    source.addEventListener('content', (raw) => {
      const data = payloadOf(raw);
      if (data) changeTurn(key, (turn) => ({ ...turn, text: turn.text + String(data['content'] ?? '') }));
    });
    source.addEventListener('tool_start', (raw) => {
      const data = payloadOf(raw);
      if (!data) return;
      const tool: ToolCallView = {
        id: String(data['tool_call_id']),
        name: String(data['name']),
        arguments: data['arguments'],
        state: 'running',
        detail: null,
        actionId: null,
      };
      changeTurn(key, (turn) => ({ ...turn, tools: [...turn.tools, tool] }));
    });
    source.addEventListener('tool_result', (raw) => {
      const data = payloadOf(raw);
      if (!data) return;
      const pending = data['requires_confirmation'] === true && typeof data['action_id'] === 'string';
      const failed = data['success'] === false && !pending;
      const error = data['error'] as { message?: string } | undefined;
      changeTool(key, String(data['tool_call_id']), (tool) => ({
        ...tool,
        state: pending ? 'pending_confirmation' : failed ? 'failed' : 'done',
        detail: pending
          ? 'Waits for confirmation'
          : failed
            ? (error?.message ?? 'failed')
            : `${Math.round(Number(data['execution_time_ms'] ?? 0))} ms: ${brief(data['result'])}`,
        actionId: pending ? String(data['action_id']) : null,
      }));
      if (pending) setRefreshPending((count) => count + 1);
    });
    source.addEventListener('done', (raw) => {
      const data = payloadOf(raw);
      if (data) {
        changeTurn(key, (turn) => ({
          ...turn,
          citations: (data['citations'] as Citation[] | undefined) ?? [],
        }));
        if (typeof data['conversation_id'] === 'string') {
          streamed.current = data['conversation_id'];
          props.onConversation(data['conversation_id']);
        }
      }
      finish();
    });
    source.addEventListener('error', (raw) => {
      const data = payloadOf(raw);
      // The server's own `error` event carries data; a lost connection is retried by the browser
      // unless it has given up (closed).
      if (data) {
        changeTurn(key, (turn) => ({ ...turn, error: String(data['detail'] ?? data['error'] ?? 'failed') }));
        finish();
      } else if (source.readyState === EventSource.CLOSED) {
        changeTurn(key, (turn) => ({ ...turn, error: 'The connection to the server was lost.' }));
        finish();
      }
    });
  };

  const citationsOf = (turnKey: string): Citation[] =>
    turns.find((turn) => turn.key === turnKey)?.citations ?? [];

  return (
    <>
      <h1>Chat</h1>
      <p class="hint">
        {props.conversationId ? (
          <>
            Conversation <code>{props.conversationId}</code>.{' '}
            <button
              type="button"
              class="link"
              onClick={() => {
                streamed.current = null;
                props.onConversation(null);
                setTurns([]);
              }}
            >
              Start a new conversation
            </button>
          </>
        ) : (
          'A new conversation starts with your first message.'
        )}
      </p>
      <section aria-labelledby="messages-heading" class="chat">
        <h2 id="messages-heading" class="visually-hidden">
          Messages
        </h2>
        <ol class="plain messages" aria-live="polite">
          {turns.map((turn) => (
            <li key={turn.key} class={`message ${turn.role}`} aria-busy={turn.streaming}>
              <p class="who">{turn.role === 'user' ? 'You' : 'Assistant'}</p>
              <ToolCalls tools={turn.tools} onDecided={() => setRefreshPending((count) => count + 1)} />
              {turn.streaming || turn.role === 'user' ? (
                <p dir="auto" class="answer">
                  {turn.text || (turn.streaming ? '…' : '')}
                </p>
              ) : (
                <CitedText
                  text={turn.text}
                  citations={turn.citations}
                  onOpen={(index) => setOpen({ turn: turn.key, index })}
                />
              )}
              {!turn.streaming && turn.citations.length > 0 && (
                <SourceList
                  citations={turn.citations}
                  onOpen={(index) => setOpen({ turn: turn.key, index })}
                />
              )}
              <ErrorAlert message={turn.error} />
            </li>
          ))}
        </ol>
      </section>
      <form class="panel composer" onSubmit={send}>
        <label>
          Message
          <textarea
            dir="auto"
            rows={3}
            value={message}
            onInput={(event) => setMessage(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) send(event);
            }}
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Answering…' : 'Send'}
        </button>
        <span class="hint">Ctrl+Enter sends.</span>
      </form>
      <ErrorAlert message={error} />
      <PendingActions refreshKey={refreshPending} />
      <CitationDialog
        citation={open ? (citationsOf(open.turn)[open.index] ?? null) : null}
        number={(open?.index ?? 0) + 1}
        onClose={() => setOpen(null)}
      />
    </>
  );
}
