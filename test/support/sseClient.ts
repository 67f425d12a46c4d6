export interface SseEvent {
  id: string | null;
  event: string | null;
  data: Record<string, unknown>;
}

export interface SseConnection {
  status: number;
  /** The next event (comment lines such as keep-alives are skipped). */
  next(): Promise<SseEvent>;
  /** The text of the next comment line (a keep-alive), without its colon; events read meanwhile wait for `next`. */
  nextComment(): Promise<string>;
  /** The next `count` events. */
  take(count: number): Promise<SseEvent[]>;
  close(): void;
}

/** The text of a frame made only of comment lines, such as `: keep-alive`. */
function commentOf(frame: string): string | null {
  const lines = frame.split('\n');
  if (!lines.every((line) => line.startsWith(':'))) return null;
  return lines.map((line) => line.slice(1).trim()).join('\n');
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
  const comments: string[] = [];

  /** Reads what has arrived and sorts its complete frames into events and comments. */
  async function read(): Promise<void> {
    const { value, done } = await reader.read();
    if (done) throw new Error('the event stream ended');
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const parsed = parseFrame(frame);
      if (parsed) ready.push(parsed);
      const comment = commentOf(frame);
      if (comment !== null) comments.push(comment);
    }
  }

  async function next(): Promise<SseEvent> {
    for (;;) {
      const event = ready.shift();
      if (event) return event;
      await read();
    }
  }

  async function nextComment(): Promise<string> {
    for (;;) {
      const comment = comments.shift();
      if (comment !== undefined) return comment;
      await read();
    }
  }

  return {
    status: response.status,
    next,
    nextComment,
    async take(count) {
      const events: SseEvent[] = [];
      while (events.length < count) events.push(await next());
      return events;
    },
    close: () => controller.abort(),
  };
}
