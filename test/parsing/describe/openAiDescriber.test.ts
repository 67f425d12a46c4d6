import { expect } from 'chai';
import sharp from 'sharp';
import type { Describer, ImageDescription, ImageToDescribe } from '../../../src/parsing/context.js';
import { createOpenAiDescriber, parseAnswer } from '../../../src/parsing/describe/openAiDescriber.js';
import {
  startOpenAiCompatibleServer,
  type ChatMessage,
  type ChatReply,
  type OpenAiCompatibleServer,
} from '../../support/openaiCompatibleServer.js';
import { expectParseError } from '../expectParseError.js';
import { imageFixture } from '../ocr/imageFixtures.js';

const live = (): AbortSignal => new AbortController().signal;
const chart: ImageToDescribe = {
  data: imageFixture('chart.png'),
  format: 'png',
  width: 800,
  height: 500,
  context: 'Results — Figure 2: Revenue by quarter',
};
const ANSWER = [
  'KIND: chart',
  'DESCRIPTION: A bar chart titled "Revenue 2024" with one bar per quarter; revenue rises from Q1 to Q4.',
  'TEXT: Revenue 2024 Q1 Q2 Q3 Q4',
].join('\n');

/** A fallback that records the images it was given. */
function recordingFallback(): Describer & { calls: ImageToDescribe[] } {
  const calls: ImageToDescribe[] = [];
  return {
    calls,
    describe: (image): Promise<ImageDescription> => {
      calls.push(image);
      return Promise.resolve({ text: 'fallback description', kind: 'unknown', ocrText: null });
    },
  };
}

function userParts(
  message: ChatMessage | undefined,
): Array<{ type: string; text?: string; image_url?: { url: string } }> {
  if (!message || !Array.isArray(message.content)) throw new Error('expected a multi-part user message');
  return message.content;
}

describe('OpenAI-compatible describer', () => {
  let server: OpenAiCompatibleServer;
  let reply: () => ChatReply;

  before(async () => {
    server = await startOpenAiCompatibleServer({ respond: () => reply() });
  });
  after(() => server.close());
  beforeEach(() => {
    server.requests.length = 0;
    reply = () => ({ content: ANSWER });
  });

  const describer = (fallback: Describer, timeoutMs = 5000): Describer =>
    createOpenAiDescriber({
      baseUrl: server.baseUrl,
      apiKey: 'test-key',
      model: 'vision-test',
      timeoutMs,
      fallback,
    });

  it('sends the image as a data URI with a factual prompt, and uses the answer', async () => {
    const fallback = recordingFallback();
    const result = await describer(fallback).describe(chart, live());
    expect(result).to.deep.equal({
      text: 'A bar chart titled "Revenue 2024" with one bar per quarter; revenue rises from Q1 to Q4.',
      kind: 'chart',
      ocrText: 'Revenue 2024 Q1 Q2 Q3 Q4',
    });
    expect(fallback.calls).to.have.length(0);

    const [request] = server.requests;
    expect(request?.path).to.equal('/v1/chat/completions');
    expect(request?.headers.authorization).to.equal('Bearer test-key');
    const body = request?.body as { model: string; messages: ChatMessage[] };
    expect(body.model).to.equal('vision-test');
    expect(body.messages[0]?.role).to.equal('system');
    expect(body.messages[0]?.content).to.match(/factual/i);
    const parts = userParts(body.messages[1]);
    const text = parts.find((part) => part.type === 'text')?.text ?? '';
    expect(text).to.include('Size: 800×500 px.');
    expect(text).to.include('Figure 2: Revenue by quarter');
    const url = parts.find((part) => part.type === 'image_url')?.image_url?.url ?? '';
    expect(url.startsWith('data:image/png;base64,')).to.equal(true);
    expect(
      Buffer.from(url.slice('data:image/png;base64,'.length), 'base64').equals(Buffer.from(chart.data)),
    ).to.equal(true);
  });

  it('converts a BMP to PNG before sending it', async () => {
    const bmp: ImageToDescribe = {
      data: imageFixture('text-24bit.bmp'),
      format: 'bmp',
      width: 380,
      height: 135,
      context: null,
    };
    await describer(recordingFallback()).describe(bmp, live());
    const body = server.requests[0]?.body as { messages: ChatMessage[] };
    const url = userParts(body.messages[1]).find((part) => part.type === 'image_url')?.image_url?.url ?? '';
    expect(url.startsWith('data:image/png;base64,')).to.equal(true);
    const metadata = await sharp(Buffer.from(url.split(',')[1] ?? '', 'base64')).metadata();
    expect([metadata.format, metadata.width, metadata.height]).to.deep.equal(['png', 380, 135]);
  });

  it('falls back when the endpoint answers 500', async () => {
    reply = () => ({ status: 500, content: 'model crashed' });
    const fallback = recordingFallback();
    const result = await describer(fallback).describe(chart, live());
    expect(result.text).to.equal('fallback description');
    expect(fallback.calls).to.have.length(1);
    expect(fallback.calls[0]?.data).to.equal(chart.data);
    expect(server.requests).to.have.length(1);
  });

  it('falls back when the model is slower than timeoutMs', async () => {
    reply = () => ({ content: ANSWER, delayMs: 2000 });
    const fallback = recordingFallback();
    const started = performance.now();
    const result = await describer(fallback, 300).describe(chart, live());
    expect(result.text).to.equal('fallback description');
    expect(performance.now() - started).to.be.below(1500);
  });

  it('falls back on an empty answer', async () => {
    reply = () => ({ content: '   ' });
    const fallback = recordingFallback();
    expect((await describer(fallback).describe(chart, live())).text).to.equal('fallback description');
  });

  it('stops with aborted, without the fallback, when the caller aborts', async () => {
    reply = () => ({ content: ANSWER, delayMs: 2000 });
    const fallback = recordingFallback();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expectParseError(describer(fallback).describe(chart, controller.signal), 'aborted');
    expect(fallback.calls).to.have.length(0);
  });

  describe('reading answers', () => {
    it('reads the labelled form, also in Markdown bold and over several lines', () => {
      expect(
        parseAnswer(
          '**KIND:** Diagram\n**DESCRIPTION:** Four boxes\njoined by arrows.\n**TEXT:** "Upload Parse"',
        ),
      ).to.deep.equal({
        text: 'Four boxes\njoined by arrows.',
        kind: 'diagram',
        ocrText: 'Upload Parse',
      });
    });

    it('takes a free-form answer whole, with kind unknown, and "none" as no text', () => {
      expect(parseAnswer('A red bicycle against a wall.')).to.deep.equal({
        text: 'A red bicycle against a wall.',
        kind: 'unknown',
        ocrText: null,
      });
      expect(parseAnswer('KIND: photograph\nDESCRIPTION: A harbour at dusk.\nTEXT: none')).to.deep.equal({
        text: 'A harbour at dusk.',
        kind: 'photo',
        ocrText: null,
      });
      expect(parseAnswer('KIND: chart\nDESCRIPTION:\nTEXT: none')).to.equal(null);
    });
  });
});
