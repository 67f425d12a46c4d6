import { expect } from 'chai';
import type { ChatModel, ChatRequest, ChatStreamEvent } from '../../src/models/chatModel.js';
import { ModelError } from '../../src/models/modelError.js';
import { createOpenAiChatModel } from '../../src/models/openAiChatModel.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../src/models/remoteCall.js';
import { expectRejection } from '../support/expectRejection.js';
import {
  errorReply,
  inOrder,
  startScriptedServer,
  type Script,
  type ScriptedReply,
  type ScriptedServer,
} from '../support/scriptedModelServer.js';

function completionReply(
  message: Record<string, unknown>,
  finish: string | null = 'stop',
  usage: unknown = { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
): ScriptedReply {
  return {
    json: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 0,
      model: 'served-model',
      choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
      usage,
    },
  };
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'served-model',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

async function collect(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const ask: ChatRequest = { messages: [{ role: 'user', content: 'Say hello' }] };

describe('OpenAI-compatible chat model against a scripted server', () => {
  let server: ScriptedServer;
  let waits: number[];
  afterEach(async () => server.close());

  async function chat(script: Script, policy: Partial<RetryPolicy> = {}): Promise<ChatModel> {
    server = await startScriptedServer(script);
    waits = [];
    return createOpenAiChatModel({
      baseUrl: `${server.url}/v1`,
      apiKey: '',
      model: 'llama-test',
      maxTokens: 256,
      policy: { ...DEFAULT_RETRY_POLICY, timeoutMs: 5_000, ...policy },
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0,
    });
  }
  const body = (at = 0) => server.requests[at]!.body as Record<string, unknown>;

  it('sends the conversation with its defaults and reads the answer, usage and finish reason', async () => {
    const model = await chat(() => completionReply({ content: 'Hello!' }));
    expect(model.name).to.equal('llama-test');
    const completion = await model.complete({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
    expect(server.requests[0]).to.include({ method: 'POST', path: '/v1/chat/completions' });
    expect(body()).to.deep.equal({
      model: 'llama-test',
      max_tokens: 256,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
    expect(completion).to.deep.equal({
      content: 'Hello!',
      toolCalls: [],
      finishReason: 'stop',
      usage: { input: 12, output: 3, total: 15 },
    });
  });

  it('passes temperature and max tokens, and reports a cut answer as finish reason `length`', async () => {
    const model = await chat(() => completionReply({ content: 'Once upon a' }, 'length'));
    const completion = await model.complete({ ...ask, temperature: 0.7, maxTokens: 3 });
    expect(body()).to.include({ temperature: 0.7, max_tokens: 3 });
    expect(completion.finishReason).to.equal('length');
  });

  it('estimates the usage locally when the server reports none', async () => {
    const model = await chat(() => completionReply({ content: 'Hello there, friend.' }, 'stop', undefined));
    const { usage } = await model.complete(ask);
    expect(usage.output).to.be.greaterThan(0);
    expect(usage.total).to.equal(usage.input + usage.output);
  });

  it('asks for JSON following a schema as response_format json_schema (strict unless told otherwise)', async () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    };
    const model = await chat(() => completionReply({ content: '{"city":"Paris"}' }));
    const completion = await model.complete({ ...ask, responseFormat: { name: 'capital', schema } });
    expect(body()['response_format']).to.deep.equal({
      type: 'json_schema',
      json_schema: { name: 'capital', schema, strict: true },
    });
    expect(JSON.parse(completion.content)).to.deep.equal({ city: 'Paris' });
    await model.complete({ ...ask, responseFormat: { name: 'capital', schema, strict: false } });
    expect((body(1)['response_format'] as { json_schema: { strict: boolean } }).json_schema.strict).to.equal(
      false,
    );
  });

  it('sends tool definitions and a tool choice, and returns the tool calls the model makes', async () => {
    const model = await chat(() =>
      completionReply(
        {
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        'tool_calls',
      ),
    );
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const completion = await model.complete({
      ...ask,
      tools: [{ name: 'weather', description: 'Weather of a city', parameters }],
      toolChoice: { name: 'weather' },
    });
    expect(body()['tools']).to.deep.equal([
      { type: 'function', function: { name: 'weather', description: 'Weather of a city', parameters } },
    ]);
    expect(body()['tool_choice']).to.deep.equal({ type: 'function', function: { name: 'weather' } });
    expect(completion).to.deep.include({
      content: '',
      finishReason: 'tool_calls',
      toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' }],
    });
  });

  it('sends earlier tool calls and their results back in the wire format', async () => {
    const model = await chat(() => completionReply({ content: 'It is 4 °C in Oslo.' }));
    await model.complete({
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' }],
        },
        { role: 'tool', toolCallId: 'call_1', content: '{"celsius":4}' },
      ],
      toolChoice: 'none',
    });
    expect(body()['messages']).to.deep.equal([
      { role: 'user', content: 'Weather in Oslo?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"celsius":4}' },
    ]);
    expect(body()['tool_choice']).to.equal('none');
  });

  it('streams text deltas, then one `done` with the whole answer and the usage sent last', async () => {
    const model = await chat(() => ({
      sse: [
        chunk({ role: 'assistant', content: '' }),
        chunk({ content: 'Hel' }),
        chunk({ content: 'lo!' }),
        chunk({}, 'stop'),
        {
          id: 'chatcmpl-1',
          object: 'chat.completion.chunk',
          created: 0,
          model: 'm',
          choices: [],
          usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 },
        },
      ],
    }));
    const events = await collect(model.stream(ask));
    expect(body()).to.include({ stream: true });
    expect(body()['stream_options']).to.deep.equal({ include_usage: true });
    expect(events).to.deep.equal([
      { type: 'delta', content: 'Hel' },
      { type: 'delta', content: 'lo!' },
      {
        type: 'done',
        completion: {
          content: 'Hello!',
          toolCalls: [],
          finishReason: 'stop',
          usage: { input: 9, output: 2, total: 11 },
        },
      },
    ]);
  });

  it('assembles streamed tool calls from their pieces', async () => {
    const model = await chat(() => ({
      sse: [
        chunk({
          tool_calls: [
            { index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: '' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        chunk({
          tool_calls: [
            { index: 1, id: 'call_2', type: 'function', function: { name: 'time', arguments: '{}' } },
          ],
        }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
        chunk({}, 'tool_calls'),
      ],
    }));
    const events = await collect(model.stream(ask));
    expect(events).to.have.length(1);
    const done = events[0] as Extract<ChatStreamEvent, { type: 'done' }>;
    expect(done.completion.finishReason).to.equal('tool_calls');
    expect(done.completion.toolCalls).to.deep.equal([
      { id: 'call_1', name: 'weather', arguments: '{"city":"Oslo"}' },
      { id: 'call_2', name: 'time', arguments: '{}' },
    ]);
  });

  it('retries opening a stream on 429/5xx, but not a stream that has started', async () => {
    const model = await chat(
      inOrder(errorReply(503, 'loading'), { sse: [chunk({ content: 'ok' }), chunk({}, 'stop')] }),
    );
    const events = await collect(model.stream(ask));
    expect(events[0]).to.deep.equal({ type: 'delta', content: 'ok' });
    expect(server.requests).to.have.length(2);
    expect(waits).to.deep.equal([250]);
  });

  it('times a stream out when it goes silent, after the text it has already given', async () => {
    const model = await chat(() => ({ sse: [chunk({ content: 'partial' })], hold: true }), {
      timeoutMs: 150,
    });
    const seen: ChatStreamEvent[] = [];
    const error = await expectRejection(
      (async () => {
        for await (const event of model.stream(ask)) seen.push(event);
      })(),
      ModelError,
    );
    expect(seen).to.deep.equal([{ type: 'delta', content: 'partial' }]);
    expect(error.code).to.equal('timeout');
    expect(error.message).to.equal('llama-test: chat stream got no answer within 150 ms');
    expect(server.requests).to.have.length(1);
  });

  it('does not pass a stream cut short (no finish reason) for a finished answer', async () => {
    const model = await chat(() => ({ sse: [chunk({ content: 'The answer is' })] }));
    const seen: ChatStreamEvent[] = [];
    const error = await expectRejection(
      (async () => {
        for await (const event of model.stream(ask)) seen.push(event);
      })(),
      ModelError,
    );
    expect(seen).to.deep.equal([{ type: 'delta', content: 'The answer is' }]);
    expect(error.code).to.equal('bad_response');
    expect(error.message).to.match(/the stream ended before the model finished/);
  });

  it('stops a stream when the caller aborts', async () => {
    const model = await chat(() => ({ sse: [chunk({ content: 'partial' })], hold: true }));
    const controller = new AbortController();
    const error = await expectRejection(
      (async () => {
        for await (const event of model.stream({ ...ask, signal: controller.signal })) {
          if (event.type === 'delta') controller.abort();
        }
      })(),
      ModelError,
    );
    expect(error.code).to.equal('aborted');
  });

  it('retries a 429 after its Retry-After, and reports rejections and unusable answers without retrying', async () => {
    const limited = await chat(
      inOrder(errorReply(429, 'rate limited', { 'retry-after': '1' }), completionReply({ content: 'ok' })),
    );
    expect((await limited.complete(ask)).content).to.equal('ok');
    expect(waits).to.deep.equal([1_000]);
    await server.close();

    const rejected = await chat(() => errorReply(400, "'messages' must not be empty"));
    const error = await expectRejection(rejected.complete(ask), ModelError);
    expect(error).to.include({ code: 'rejected', httpStatus: 400 });
    expect(error.message).to.match(/'messages' must not be empty/);
    expect(server.requests).to.have.length(1);
    await server.close();

    const empty = await chat(() => ({ json: { id: 'x', object: 'chat.completion', choices: [] } }));
    const bad = await expectRejection(empty.complete(ask), ModelError);
    expect(bad.code).to.equal('bad_response');
    expect(bad.message).to.equal('llama-test: chat completion failed: the answer has no choices');
  });

  it('is ready when the model list names the model (Ollama’s `:latest` included), and says why not', async () => {
    const listing =
      (...ids: string[]): Script =>
      () => ({ json: { object: 'list', data: ids.map((id) => ({ id })) } });
    expect(await (await chat(listing('llama-test'))).probe()).to.deep.equal({ healthy: true, reason: null });
    await server.close();
    expect(await (await chat(listing('llama-test:latest'))).probe()).to.deep.equal({
      healthy: true,
      reason: null,
    });
    await server.close();
    const other = await (await chat(listing('qwen2.5'))).probe();
    expect(other).to.deep.equal({
      healthy: false,
      reason: `llama-test is not among the models at ${server.url}/v1: qwen2.5`,
    });
  });
});
