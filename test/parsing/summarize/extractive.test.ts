import { expect } from 'chai';
import { countWords } from '../../../src/text/words.js';
import { createExtractiveSummarizer, extractiveSummary } from '../../../src/parsing/summarize/extractive.js';
import { isSummarizerError } from '../../../src/parsing/summarize/summarizer.js';
import { renderMarkdown } from '../../../src/parsing/render/renderMarkdown.js';
import { ARABIC_SENTENCES, annualReport, prose } from '../chunk/sampleDocuments.js';

const ARTICLE = [
  '# Leakage programme',
  '',
  'The city water utility lost nineteen percent of its treated water to leakage last year.',
  'Leakage from old cast-iron mains is the largest source of that loss.',
  'The weather was mild in spring.',
  'Replacing cast-iron mains in the worst districts will cut leakage by a third, the utility says.',
  'A new mascot was chosen for the open day.',
  '',
  '| District | Leakage |',
  '| --- | --- |',
  '| North | 24% |',
  '',
  '- Leakage teams now work at night, when pressure is highest and leaks are easiest to hear.',
].join('\n');

describe('extractive summarizer', () => {
  it('keeps the sentences about the main subject, in their original order, within the word limit', async () => {
    const summary = await createExtractiveSummarizer().summarize(ARTICLE, {
      maxWords: 45,
      signal: new AbortController().signal,
      language: 'en',
    });
    expect(summary).to.equal(
      'The city water utility lost nineteen percent of its treated water to leakage last year. ' +
        'Leakage from old cast-iron mains is the largest source of that loss. ' +
        'Replacing cast-iron mains in the worst districts will cut leakage by a third, the utility says.',
    );
    expect(countWords(summary)).to.be.at.most(45);
  });

  it('leaves out headings, table rows and off-topic sentences', () => {
    const summary = extractiveSummary(ARTICLE, 200);
    expect(summary).not.to.include('#');
    expect(summary).not.to.include('|');
    expect(summary.indexOf('Leakage teams')).to.be.greaterThan(summary.indexOf('The city water'));
    const short = extractiveSummary(ARTICLE, 60);
    expect(short).not.to.include('mascot');
    expect(short).not.to.include('weather');
  });

  it('splits and summarises Arabic text at . and ؟', () => {
    const text = prose(300, 4, ARABIC_SENTENCES);
    const summary = extractiveSummary(text, 40);
    expect(countWords(summary)).to.be.within(10, 40);
    for (const sentence of summary.split(/(?<=[.؟])\s+/)) expect(ARABIC_SENTENCES).to.include(sentence);
  });

  it('is deterministic and respects the limit on a whole report', () => {
    const markdown = renderMarkdown(annualReport());
    const first = extractiveSummary(markdown, 120);
    expect(extractiveSummary(markdown, 120)).to.equal(first);
    expect(countWords(first)).to.be.within(80, 120);
  });

  it('cuts a single over-long sentence to the limit', () => {
    const summary = extractiveSummary(`${Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ')}.`, 10);
    expect(summary).to.equal('word0 word1 word2 word3 word4 word5 word6 word7 word8 word9…');
  });

  it('returns nothing for text without sentences and rejects when aborted', async () => {
    expect(extractiveSummary('# Only a heading\n\n| a | b |', 50)).to.equal('');
    const controller = new AbortController();
    controller.abort();
    const error: unknown = await createExtractiveSummarizer()
      .summarize('Some text here.', { maxWords: 10, signal: controller.signal, language: null })
      .then(
        () => null,
        (reason: unknown) => reason,
      );
    expect(isSummarizerError(error) && error.code).to.equal('aborted');
  });
});
