import { expect } from 'chai';
import { createOpenAiSummarizer } from '../../../src/parsing/summarize/openAi.js';
import { isSummarizerError, type SummarizerErrorCode } from '../../../src/parsing/summarize/summarizer.js';
import {
  startOpenAiCompatibleServer,
  type ChatReply,
  type ChatRequest,
  type OpenAiCompatibleServer,
} from '../../support/openaiCompatibleServer.js';

async function failureCode(promise: Promise<unknown>): Promise<SummarizerErrorCode | 'none' | 'other'> {
  try {
    await promise;
    return 'none';
  } catch (error) {
    return isSummarizerError(error) ? error.code : 'other';
  }
}

describe('OpenAI-compatible summarizer', () => {
  let server: OpenAiCompatibleServer;
  let reply: ChatReply;

  beforeEach(async () => {
    reply = { content: 'The utility cut leakage from 23 to 19 percent by metering districts.' };
    server = await startOpenAiCompatibleServer({ respond: () => reply });
  });
  afterEach(() => server.close());

  const summarizer = (timeoutMs = 2000) =>
    createOpenAiSummarizer({ baseUrl: server.baseUrl, apiKey: 'sk-test', model: 'summary-model', timeoutMs });
  const options = (maxWords = 120, signal = new AbortController().signal) => ({
    maxWords,
    signal,
    language: 'ar',
  });

  it('sends the text to chat completions and returns the answer', async () => {
    const summary = await summarizer().summarize('# Report\n\nLeakage fell.', options(100));
    expect(summary).to.equal('The utility cut leakage from 23 to 19 percent by metering districts.');
    expect(server.requests).to.have.length(1);
    const request = server.requests[0];
    expect(request?.path).to.equal('/v1/chat/completions');
    expect(request?.headers.authorization).to.equal('Bearer sk-test');
    const body = request?.body as ChatRequest;
    expect(body.model).to.equal('summary-model');
    expect(body.max_tokens).to.equal(266);
    expect(body.messages.map((message) => message.role)).to.deep.equal(['system', 'user']);
    expect(body.messages[0]?.content).to.include('at most 100 words');
    expect(body.messages[0]?.content).to.include('"ar"');
    expect(body.messages[1]?.content).to.equal('# Report\n\nLeakage fell.');
  });

  it('cuts an answer that overruns the word limit', async () => {
    reply = { content: 'one two three four five six seven eight' };
    expect(await summarizer().summarize('text', options(5))).to.equal('one two three four five');
  });

  it('fails with "unavailable" on a server error, without retrying', async () => {
    reply = { status: 500, content: 'model crashed' };
    expect(await failureCode(summarizer().summarize('text', options()))).to.equal('unavailable');
    expect(server.requests).to.have.length(1);
  });

  it('fails with "timeout" when the server is slower than the configured time', async () => {
    reply = { content: 'late', delayMs: 1500 };
    const started = Date.now();
    expect(await failureCode(summarizer(200).summarize('text', options()))).to.equal('timeout');
    expect(Date.now() - started).to.be.below(1200);
  });

  it('fails with "aborted" when the caller aborts', async () => {
    reply = { content: 'late', delayMs: 1500 };
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    expect(await failureCode(summarizer().summarize('text', options(50, controller.signal)))).to.equal(
      'aborted',
    );
  });

  it('fails with "empty" when the model says nothing', async () => {
    reply = { content: '   ' };
    expect(await failureCode(summarizer().summarize('text', options()))).to.equal('empty');
  });

  it('fails with "unavailable" when nothing listens', async () => {
    const closed = await startOpenAiCompatibleServer();
    await closed.close();
    const dead = createOpenAiSummarizer({
      baseUrl: closed.baseUrl,
      apiKey: 'k',
      model: 'm',
      timeoutMs: 1000,
    });
    expect(await failureCode(dead.summarize('text', options()))).to.equal('unavailable');
  });
});
