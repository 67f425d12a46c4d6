import { useEffect, useState } from 'preact/hooks';
import { describeError, retrieval } from './api';
import { DataTable } from './dataTable';
import { ErrorAlert } from './errorAlert';

interface LoggedEvent {
  position: number;
  stream: string;
  type: string;
  recorded_at: string;
  metadata: { actorId?: string; actor_id?: string };
}

/** How far back the stream starts, and how many events the page keeps. */
const BACKLOG = 100;
const KEEP = 300;
const CATEGORY = /^[a-z][a-z0-9_]*(,[a-z][a-z0-9_]*)*$/;

/**
 * Reads the event log's stream with fetch rather than EventSource: each SSE event is named after
 * its type, and EventSource delivers named events only to listeners of that name, which the
 * console cannot know in advance. Reconnects after the last position it saw until `signal` aborts.
 */
async function followLog(
  start: { from: number; categories: string },
  handlers: {
    receive: (event: LoggedEvent) => void;
    onState: (state: 'live' | 'retrying') => void;
    signal: AbortSignal;
  },
): Promise<void> {
  let from = start.from;
  while (!handlers.signal.aborted) {
    try {
      const query = new URLSearchParams({ from: String(from) });
      if (start.categories) query.set('category', start.categories);
      const response = await fetch(`/api/v1/events?${query.toString()}`, {
        credentials: 'same-origin',
        headers: { Accept: 'text/event-stream' },
        signal: handlers.signal,
      });
      if (!response.ok || !response.body) throw new Error(`status ${response.status}`);
      handlers.onState('live');
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const frames = buffer.split('\n\n');
        buffer = frames.pop() ?? '';
        for (const frame of frames) {
          const data = frame
            .split('\n')
            .filter((line) => line.startsWith('data:'))
            .map((line) => line.slice(5).trimStart())
            .join('\n');
          if (!data) continue;
          const event = JSON.parse(data) as LoggedEvent;
          from = Math.max(from, event.position);
          handlers.receive(event);
        }
      }
    } catch {
      if (handlers.signal.aborted) return;
    }
    handlers.onState('retrying');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }
}

/**
 * The event log, live (`/api/v1/events`, administrators only): the last hundred events, then each
 * new one as it is recorded, newest first; optionally only some stream categories.
 */
export function AuditView() {
  const [events, setEvents] = useState<LoggedEvent[]>([]);
  const [categories, setCategories] = useState('');
  const [applied, setApplied] = useState('');
  const [state, setState] = useState<'connecting' | 'live' | 'retrying'>('connecting');
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const stop = new AbortController();
    setEvents([]);
    setState('connecting');
    const receive = (event: LoggedEvent): void => setEvents((all) => [event, ...all].slice(0, KEEP));
    retrieval<{ head_position: number }>('GET', '/health/stats')
      .then(({ head_position }) =>
        followLog(
          { from: Math.max(0, head_position - BACKLOG), categories: applied },
          { receive, onState: setState, signal: stop.signal },
        ),
      )
      .catch((failure: unknown) => !stop.signal.aborted && setError(describeError(failure)));
    return () => stop.abort();
  }, [applied]);

  const apply = (event: Event): void => {
    event.preventDefault();
    const value = categories.replace(/\s+/g, '');
    if (value && !CATEGORY.test(value)) {
      setError('Categories are lower-case names separated by commas, e.g. document,task');
      return;
    }
    setError(null);
    setApplied(value);
  };

  return (
    <>
      <h1>Audit</h1>
      <form class="panel" onSubmit={apply}>
        <label>
          Stream categories (comma-separated; empty: all)
          <input value={categories} onInput={(event) => setCategories(event.currentTarget.value)} />
        </label>
        <button type="submit">Apply</button>
      </form>
      <ErrorAlert message={error} />
      <p role="status">
        Stream {state}; {events.length} events shown, newest first.
      </p>
      <DataTable
        caption="Recorded events"
        captionHidden
        columns={['Position', 'Recorded', 'Type', 'Stream', 'Actor']}
      >
        {events.map((event) => (
          <tr key={event.position}>
            <td>{event.position}</td>
            <td>{new Date(event.recorded_at).toLocaleString()}</td>
            <td>{event.type}</td>
            <td class="wrap">{event.stream}</td>
            <td>{event.metadata.actorId ?? event.metadata.actor_id ?? ''}</td>
          </tr>
        ))}
      </DataTable>
    </>
  );
}
