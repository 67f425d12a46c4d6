import type { Logger } from '../log.js';
import type { ChatModel } from './chatModel.js';
import { ModelError } from './modelError.js';
import { checkModelListed, createOpenAiClient, translateOpenAiError } from './openAiClient.js';
import { createStreamAccumulator, fromWireCompletion, toWireRequest } from './openAiChatWire.js';
import { cachedProbe, probePolicy } from './probe.js';
import { createRemoteCaller, type RemoteCallerOptions, type RetryPolicy } from './remoteCall.js';

export interface OpenAiChatModelOptions {
  /** Base URL including `/v1`. */
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Tokens a request may generate when it does not say. */
  maxTokens: number;
  policy: RetryPolicy;
  log?: Logger;
  sleep?: RemoteCallerOptions['sleep'];
  random?: RemoteCallerOptions['random'];
}

/**
 * A ChatModel backed by any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama,
 * llama.cpp server…): temperature, max tokens, tools, a JSON-schema response format, the server's
 * token usage and finish reason, and streaming (`stream_options.include_usage`, so the usage comes
 * at the end). Calls run under the shared retry policy; a stream is retried only until it opens,
 * and its time limit then applies between chunks, so a long answer is not cut while it flows.
 */
export function createOpenAiChatModel(options: OpenAiChatModelOptions): ChatModel {
  const { model } = options;
  const client = createOpenAiClient({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    timeoutMs: options.policy.timeoutMs,
  });
  const callerOptions = {
    model,
    translate: translateOpenAiError,
    ...(options.log ? { log: options.log } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...(options.random ? { random: options.random } : {}),
  };
  const caller = createRemoteCaller({ ...callerOptions, policy: options.policy });
  const prober = createRemoteCaller({ ...callerOptions, policy: probePolicy(options.policy) });
  const defaults = { model, maxTokens: options.maxTokens };

  return {
    name: model,
    async complete(request) {
      const completion = await caller.call(
        'chat completion',
        async (attempt) =>
          (await client()).chat.completions.create(toWireRequest(request, defaults), {
            signal: attempt.signal,
          }),
        request.signal,
      );
      return fromWireCompletion(completion, request, model);
    },
    async *stream(request) {
      const { value: chunks, attempt } = await caller.open(
        'chat stream',
        async (attempt) =>
          (await client()).chat.completions.create(
            { ...toWireRequest(request, defaults), stream: true, stream_options: { include_usage: true } },
            { signal: attempt.signal },
          ),
        request.signal,
      );
      const accumulator = createStreamAccumulator(request);
      try {
        for await (const chunk of chunks) {
          attempt.extend();
          const text = accumulator.add(chunk);
          if (text) yield { type: 'delta', content: text };
        }
        // The SDK ends a stream quietly when it is aborted, and so does a cut connection: neither
        // may pass for a finished answer.
        if (attempt.signal.aborted) throw new Error('the stream was aborted');
        if (!accumulator.finished()) {
          throw new ModelError(
            'bad_response',
            'the stream ended before the model finished (no finish reason)',
          );
        }
      } catch (error) {
        throw attempt.fail(error);
      } finally {
        attempt.close();
      }
      yield { type: 'done', completion: accumulator.completion() };
    },
    probe: cachedProbe(async () => {
      await checkModelListed(client, prober, model, async () => {
        await prober.call('chat completion', async (attempt) =>
          (await client()).chat.completions.create(
            { model, messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 },
            { signal: attempt.signal },
          ),
        );
      });
      return null;
    }),
  };
}
