export interface SseEvent {
  id: string | null;
  event: string | null;
  data: Record<string, unknown>;
}

export interface SseConnection {
  status: number;
  /** The next event (comment lines such as keep-alives are skipped). */
  next(): Promise<SseEvent>;
  /** The next `count` events. */
  take(count: number): Promise<SseEvent[]>;
  close(): void;
}

function parseFrame(frame: string): SseEvent | null {
  const lines = frame.split('\n');
  const field = (name: string) =>
    lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2) ?? null;
  const data = field('data');
  if (data === null) return null;
  return { id: field('id'), event: field('event'), data: JSON.parse(data) as Record<string, unknown> };
}

/** Opens an SSE stream that may never end, and reads it event by event. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseConnection> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { Accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const ready: SseEvent[] = [];

  async function next(): Promise<SseEvent> {
    for (;;) {
      const event = ready.shift();
      if (event) return event;
      const { value, done } = await reader.read();
      if (done) throw new Error('the event stream ended');
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const parsed = parseFrame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (parsed) ready.push(parsed);
      }
    }
  }

  return {
    status: response.status,
    next,
    async take(count) {
      const events: SseEvent[] = [];
      while (events.length < count) events.push(await next());
      return events;
    },
    close: () => controller.abort(),
  };
}
