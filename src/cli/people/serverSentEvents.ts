/** One Server-Sent Event: its id, its name (`message` when unnamed) and its data. */
export interface ServerSentEvent {
  id: string | null;
  event: string;
  data: string;
}

/** The event of one frame (its lines); null for a frame of comments only (keep-alives). */
function eventOf(lines: readonly string[]): ServerSentEvent | null {
  let id: string | null = null;
  let event = 'message';
  const data: string[] = [];
  for (const line of lines) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 ? null : { id, event, data: data.join('\n') };
}

/** Reads an event stream (a `text/event-stream` body) event by event, until it ends. */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let heldCr = '';
  for await (const chunk of body) {
    // A CR that ends a chunk may be the first half of a CRLF: it waits for the next chunk.
    const text = heldCr + decoder.decode(chunk, { stream: true });
    heldCr = text.endsWith('\r') ? '\r' : '';
    buffer += (heldCr ? text.slice(0, -1) : text).replace(/\r\n?/g, '\n');
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const event = eventOf(buffer.slice(0, end).split('\n'));
      buffer = buffer.slice(end + 2);
      if (event) yield event;
    }
  }
}
