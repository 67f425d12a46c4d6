/**
 * A real HTTP server whose every answer the test scripts: status, headers, a JSON or raw body, an SSE
 * stream, a delay, or a dropped connection. For testing model adapters' wire handling (retries,
 * timeouts, malformed answers) without the network. Every request is recorded.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** The body, as JSON. */
  json?: unknown;
  /** The body, as is. */
  text?: string;
  /** Server-sent events: each item goes out as `data: <JSON>`, then `data: [DONE]`. */
  sse?: unknown[];
  /** After the events, keep the stream open and silent (a stalled server) instead of ending it. */
  hold?: boolean;
  /** Wait this long before answering (the client may give up first). */
  delayMs?: number;
  /** Close the connection without answering. */
  drop?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  headers: IncomingMessage['headers'];
}

export interface ScriptedServer {
  /** `http://127.0.0.1:<port>` (no path). */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type Script = (request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>;

/** Answers with `replies` in order, the last one for every request after. */
export function inOrder(...replies: ScriptedReply[]): Script {
  let next = 0;
  return () => replies[Math.min(next++, replies.length - 1)] ?? { status: 500 };
}

export async function startScriptedServer(script: Script): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown = raw;
        try {
          body = raw ? JSON.parse(raw) : null;
        } catch {
          // keep the raw text
        }
        const recorded = {
          method: req.method ?? '',
          path: (req.url ?? '').split('?')[0] ?? '',
          body,
          headers: req.headers,
        };
        requests.push(recorded);
        const reply = await script(recorded);
        if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
        if (res.destroyed) return;
        if (reply.drop) {
          req.socket.destroy();
          return;
        }
        if (reply.sse) {
          res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', ...reply.headers });
          for (const event of reply.sse) res.write(`data: ${JSON.stringify(event)}\n\n`);
          if (!reply.hold) res.end('data: [DONE]\n\n');
          return;
        }
        const text = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
        res.writeHead(reply.status ?? 200, {
          'content-type': reply.text === undefined ? 'application/json' : 'text/plain',
          ...reply.headers,
        });
        res.end(text);
      })().catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(599);
        res.end(String(error));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of sockets) socket.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** An OpenAI `/v1/embeddings` answer with these vectors. */
export function embeddingsReply(vectors: number[][], model = 'scripted-embedder'): ScriptedReply {
  return {
    json: {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      model,
      usage: { prompt_tokens: 1, total_tokens: 1 },
    },
  };
}

/** An OpenAI-style error answer. */
export function errorReply(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): ScriptedReply {
  return { status, headers, json: { error: { message, type: 'scripted_error', code: null } } };
}
