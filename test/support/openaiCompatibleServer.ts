/**
 * A real HTTP server speaking the OpenAI wire format (`POST /v1/chat/completions`, `POST
 * /v1/embeddings`, `GET /v1/models`), for testing the "OpenAI-compatible endpoint" adapters without
 * the network. The test decides what the model answers through `respond`; every request is
 * recorded so tests can assert what the adapter sent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatMessage {
  role: string;
  content: string | Array<{ type: string; text?: string; image_url?: { url: string } }> | null;
  tool_calls?: unknown;
  tool_call_id?: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  tools?: unknown[];
  [key: string]: unknown;
}

export interface ChatReply {
  content?: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  /** Answer with this HTTP status and an OpenAI-style error instead. */
  status?: number;
  /** Wait this long before answering (timeouts, cancellation). */
  delayMs?: number;
}

export interface OpenAiCompatibleServer {
  /** Base URL including `/v1`, as `OPENAI_BASE_URL` expects. */
  baseUrl: string;
  requests: Array<{ path: string; body: unknown; headers: IncomingMessage['headers'] }>;
  close(): Promise<void>;
}

export interface ServerOptions {
  respond?: (request: ChatRequest) => ChatReply | Promise<ChatReply>;
  embed?: (input: string[]) => number[][];
  models?: string[];
}

export async function startOpenAiCompatibleServer(
  options: ServerOptions = {},
): Promise<OpenAiCompatibleServer> {
  const requests: OpenAiCompatibleServer['requests'] = [];
  const respond = options.respond ?? ((): ChatReply => ({ content: 'ok' }));

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body: unknown = raw ? JSON.parse(raw) : null;
        const path = (req.url ?? '').split('?')[0] ?? '';
        requests.push({ path, body, headers: req.headers });
        const send = (status: number, payload: unknown): void => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(payload));
        };

        if (req.method === 'GET' && path === '/v1/models') {
          send(200, {
            object: 'list',
            data: (options.models ?? ['test-model']).map((id) => ({ id, object: 'model' })),
          });
          return;
        }
        if (req.method === 'POST' && path === '/v1/embeddings' && options.embed) {
          const input = (body as { input: string | string[] }).input;
          const vectors = options.embed(Array.isArray(input) ? input : [input]);
          send(200, {
            object: 'list',
            data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
            model: 'test-embedding',
            usage: { prompt_tokens: 0, total_tokens: 0 },
          });
          return;
        }
        if (req.method === 'POST' && path === '/v1/chat/completions') {
          const request = body as ChatRequest;
          const reply = await respond(request);
          if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
          if (reply.status && reply.status >= 400) {
            send(reply.status, { error: { message: reply.content ?? 'error', type: 'server_error' } });
            return;
          }
          const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
          const toolCalls = reply.toolCalls?.map((call, index) => ({
            index,
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          }));
          if (request.stream) {
            res.writeHead(200, { 'content-type': 'text/event-stream' });
            const chunk = (delta: unknown, finish: string | null): string =>
              `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', model: request.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
            for (const word of (reply.content ?? '').split(/(?<= )/)) {
              if (word) res.write(chunk({ content: word }, null));
            }
            if (toolCalls) res.write(chunk({ tool_calls: toolCalls }, null));
            res.write(chunk({}, toolCalls ? 'tool_calls' : 'stop'));
            res.write(
              `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', choices: [], usage })}\n\n`,
            );
            res.end('data: [DONE]\n\n');
            return;
          }
          send(200, {
            id: 'chatcmpl-test',
            object: 'chat.completion',
            created: 0,
            model: request.model,
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: reply.content ?? null, tool_calls: toolCalls },
                finish_reason: toolCalls ? 'tool_calls' : 'stop',
              },
            ],
            usage,
          });
          return;
        }
        send(404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });
      })().catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: String(error), type: 'server_error' } }));
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
