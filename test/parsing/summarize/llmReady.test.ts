import { expect } from 'chai';
import { renderMarkdown } from '../../../src/parsing/render/renderMarkdown.js';
import { extractiveSummary } from '../../../src/parsing/summarize/extractive.js';
import { buildLlmReady } from '../../../src/parsing/summarize/llmReady.js';
import { createOpenAiSummarizer } from '../../../src/parsing/summarize/openAi.js';
import { SummarizerError, type Summarizer } from '../../../src/parsing/summarize/summarizer.js';
import { startOpenAiCompatibleServer } from '../../support/openaiCompatibleServer.js';
import { annualReport, makeDocument, paragraph, prose } from '../chunk/sampleDocuments.js';

const signal = new AbortController().signal;

/** A summarizer that records its calls and answers as told. */
function recording(answer: () => Promise<string>) {
  const calls: Array<{ text: string; maxWords: number; language: string | null }> = [];
  const summarizer: Summarizer = {
    summarize(text, options) {
      calls.push({ text, maxWords: options.maxWords, language: options.language });
      return answer();
    },
  };
  return { summarizer, calls };
}

describe('buildLlmReady', () => {
  const document = { ...annualReport(), metadata: { ...annualReport().metadata, language: 'en' } };

  it('gives the title and the summary of the document Markdown', async () => {
    const { summarizer, calls } = recording(() => Promise.resolve('Leakage fell to 19 percent.'));
    const text = await buildLlmReady(document, { summarize: true, summarizer, signal, inputBytes: 40_000 });
    expect(text).to.equal('# Annual Water Quality Report 2024\n\nLeakage fell to 19 percent.');
    expect(calls).to.deep.equal([{ text: renderMarkdown(document), maxWords: 250, language: 'en' }]);
  });

  it('gives the whole Markdown when summarising is off', async () => {
    const { summarizer, calls } = recording(() => Promise.resolve('x'));
    const text = await buildLlmReady(document, { summarize: false, summarizer, signal, inputBytes: 1 });
    expect(text).to.equal(renderMarkdown(document));
    expect(calls).to.have.length(0);
  });

  it('turns summarising off above 5 MB of input', async () => {
    const { summarizer, calls } = recording(() => Promise.resolve('x'));
    expect(
      await buildLlmReady(document, { summarize: true, summarizer, signal, inputBytes: 5 * 1024 * 1024 }),
    ).not.to.equal(renderMarkdown(document));
    const big = await buildLlmReady(document, {
      summarize: true,
      summarizer,
      signal,
      inputBytes: 5 * 1024 * 1024 + 1,
    });
    expect(big).to.equal(renderMarkdown(document));
    expect(calls).to.have.length(1);
  });

  it('turns summarising off above 50,000 characters of content', async () => {
    const long = makeDocument([paragraph(prose(9000, 2))]);
    const { summarizer, calls } = recording(() => Promise.resolve('x'));
    const text = await buildLlmReady(long, { summarize: true, summarizer, signal, inputBytes: 60_000 });
    expect(text).to.equal(renderMarkdown(long));
    expect(calls).to.have.length(0);
    const counted = await buildLlmReady(long, {
      summarize: true,
      summarizer,
      signal,
      inputBytes: 60_000,
      contentChars: 50_000,
    });
    expect(counted).to.equal('# Annual Water Quality Report 2024\n\nx');
  });

  it('falls back to the extractive summary when the summarizer fails or says nothing', async () => {
    const expected = `# Annual Water Quality Report 2024\n\n${extractiveSummary(renderMarkdown(document), 250)}`;
    const failing = recording(() => Promise.reject(new SummarizerError('unavailable', 'down')));
    expect(
      await buildLlmReady(document, {
        summarize: true,
        summarizer: failing.summarizer,
        signal,
        inputBytes: 1,
      }),
    ).to.equal(expected);
    const broken = recording(() => Promise.reject(new TypeError('bug')));
    expect(
      await buildLlmReady(document, {
        summarize: true,
        summarizer: broken.summarizer,
        signal,
        inputBytes: 1,
      }),
    ).to.equal(expected);
    const silent = recording(() => Promise.resolve('  '));
    expect(
      await buildLlmReady(document, {
        summarize: true,
        summarizer: silent.summarizer,
        signal,
        inputBytes: 1,
      }),
    ).to.equal(expected);
  });

  it('falls back to the extractive summary when the LLM server answers 500', async () => {
    const server = await startOpenAiCompatibleServer({ respond: () => ({ status: 500 }) });
    try {
      const summarizer = createOpenAiSummarizer({
        baseUrl: server.baseUrl,
        apiKey: 'k',
        model: 'm',
        timeoutMs: 2000,
      });
      const text = await buildLlmReady(document, {
        summarize: true,
        summarizer,
        signal,
        inputBytes: 1,
        summaryWords: 80,
      });
      expect(text).to.equal(
        `# Annual Water Quality Report 2024\n\n${extractiveSummary(renderMarkdown(document), 80)}`,
      );
      expect(server.requests).to.have.length(1);
    } finally {
      await server.close();
    }
  });
});
