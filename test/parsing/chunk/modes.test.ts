import { expect } from 'chai';
import { chunkDocument } from '../../../src/parsing/chunk/chunkDocument.js';
import { chooseStrategy } from '../../../src/parsing/chunk/analyse.js';
import type { ChunkingMode } from '../../../src/parsing/chunk/model.js';
import { renderFullText } from '../../../src/parsing/render/renderFullText.js';
import type { Block } from '../../../src/parsing/model.js';
import {
  annualReport,
  heading,
  makeDocument,
  paragraph,
  prose,
  tableBlock,
  samplingTable,
} from './sampleDocuments.js';

const sizes = { targetWords: 500, maxWords: 1500 };
const run = (mode: ChunkingMode, document = annualReport(), options = sizes) =>
  chunkDocument(document, { mode, ...options, documentId: 'r' });

/** A 30-page document without headings, about 300 words a page. */
function pagedMinutes(): Block[] {
  const blocks: Block[] = [];
  for (let page = 1; page <= 30; page += 1) {
    blocks.push(paragraph(prose(150, page), page), paragraph(prose(150, page + 100), page));
  }
  return blocks;
}

describe('page chunking', () => {
  const { chunks, stats } = run('page');

  it('never lets a chunk cross a page and covers every page with text', () => {
    for (const chunk of chunks) expect(chunk.pageStart).to.equal(chunk.pageEnd);
    expect([...new Set(chunks.map((chunk) => chunk.pageStart))]).to.deep.equal([
      1, 2, 3, 4, 5, 9, 10, 11, 12,
    ]);
    expect(stats.strategyUsed).to.equal('page');
  });

  it('marks the second and later chunks of a page as continuations', () => {
    const byPage = new Map<number, boolean[]>();
    for (const chunk of chunks)
      byPage.set(chunk.pageStart, [...(byPage.get(chunk.pageStart) ?? []), chunk.isContinuation]);
    for (const flags of byPage.values()) expect(flags).to.deep.equal(flags.map((_, i) => i > 0));
    expect(byPage.get(5)).to.deep.equal([false, true, true]);
  });

  it('keeps a heading with the text it introduces when a page needs several chunks', () => {
    for (const chunk of chunks) expect(chunk.content).not.to.match(/\n#+ [^\n]*$/);
    const raw = chunks.find((chunk) => chunk.content.startsWith('## Treatment'));
    expect(raw?.pageStart).to.equal(1);
    expect(raw?.sectionPath).to.deep.equal(['Annual Water Quality Report 2024', 'Treatment', 'Raw water']);
  });
});

describe('paragraph chunking', () => {
  it('packs paragraphs to the target across headings and pages', () => {
    const blocks: Block[] = [];
    for (let i = 0; i < 40; i += 1) {
      const page = Math.floor(i / 6) + 1;
      if (i % 10 === 0) blocks.push(heading(`Topic ${i / 10 + 1}`, 2, page));
      blocks.push(paragraph(prose(40, i), page));
    }
    const { chunks, stats } = run('paragraph', makeDocument(blocks));
    expect(stats.strategyUsed).to.equal('paragraph');
    expect(chunks.length).to.be.within(4, 5);
    expect(chunks.slice(0, -1).every((chunk) => chunk.wordCount <= 500 && chunk.wordCount >= 400)).to.equal(
      true,
    );
    expect(chunks.some((chunk) => chunk.pageEnd > chunk.pageStart)).to.equal(true);
    // Headings do not close chunks: the first chunk runs on into Topic 2 and keeps the path it started in.
    expect(chunks[0]?.content).to.include('\n\n## Topic 2\n\n');
    expect(chunks[0]?.sectionPath).to.deep.equal(['Topic 1']);
    expect(chunks[1]?.sectionPath).to.deep.equal(['Topic 2']);
    expect(chunks.every((chunk) => !chunk.isContinuation)).to.equal(true);
  });

  it('marks chunks that start inside a split paragraph as continuations', () => {
    const { chunks } = run('paragraph', makeDocument([paragraph(prose(1200, 3))]));
    expect(chunks.map((chunk) => chunk.isContinuation)).to.deep.equal([false, true, true]);
  });
});

describe('disabled chunking', () => {
  it('gives the whole document as one chunk when it is within the maximum', () => {
    const document = makeDocument([
      heading('Notice', 1),
      paragraph(prose(300, 2)),
      tableBlock(samplingTable(10)),
    ]);
    const { chunks, stats } = run('disabled', document);
    expect(chunks).to.have.length(1);
    expect(chunks[0]?.content).to.equal(
      renderFullText(document, { includeTables: true, includeImages: true }),
    );
    expect(chunks[0]?.isContinuation).to.equal(false);
    expect(stats.strategyUsed).to.equal('disabled');
  });

  it('splits a document above the maximum into parts of at most the maximum, marked as continuations', () => {
    const { chunks } = run('disabled', annualReport(), { targetWords: 500, maxWords: 1500 });
    expect(chunks.length).to.be.greaterThan(1);
    expect(chunks.every((chunk) => chunk.wordCount <= 1500)).to.equal(true);
    expect(chunks.map((chunk) => chunk.isContinuation)).to.deep.equal(chunks.map((_, i) => i > 0));
  });
});

describe('auto chunking', () => {
  it('chooses semantic for a document structured by headings', () => {
    expect(run('auto').stats.strategyUsed).to.equal('semantic');
  });

  it('chooses page for a long paged document without headings', () => {
    const { stats, chunks } = run('auto', makeDocument(pagedMinutes()));
    expect(stats.strategyUsed).to.equal('page');
    expect(chunks).to.have.length(30);
  });

  it('chooses page for slides even when they are short', () => {
    const slides = Array.from({ length: 8 }, (_, i) => paragraph(prose(25, i), i + 1));
    expect(run('auto', makeDocument(slides, { format: '.pptx' })).stats.strategyUsed).to.equal('page');
  });

  it('chooses paragraph for a single page of plain text', () => {
    const text = makeDocument([paragraph(prose(900, 1)), paragraph(prose(700, 2))], { format: '.txt' });
    expect(run('auto', text).stats.strategyUsed).to.equal('paragraph');
  });

  it('does not trust headings that fire on almost every line', () => {
    const blocks: Block[] = [];
    for (let i = 0; i < 60; i += 1) blocks.push(heading(`Line ${i}`, 2), paragraph('Yes, two words.'));
    const { strategy, analysis } = chooseStrategy(makeDocument(blocks, { format: '.txt' }), sizes);
    expect(analysis.headings).to.equal(60);
    expect(analysis.wordsPerSection).to.be.lessThan(10);
    expect(strategy).to.equal('paragraph');
  });

  it('gives the same chunks as the strategy it chose', () => {
    const auto = run('auto');
    const semantic = run('semantic');
    expect(auto.chunks).to.deep.equal(semantic.chunks);
  });
});

describe('chunk ids and options', () => {
  it('derives ids from the document id and index, so re-chunking gives the same ids', () => {
    const first = run('auto');
    const second = run('auto');
    expect(first).to.deep.equal(second);
    expect(first.chunks.map((chunk) => chunk.chunkId)).to.deep.equal(first.chunks.map((_, i) => `r:${i}`));
    expect(first.chunks.every((chunk) => chunk.totalChunks === first.chunks.length)).to.equal(true);
  });

  it('rejects sizes below one word and lowers a target above the maximum', () => {
    expect(() => run('auto', annualReport(), { targetWords: 500, maxWords: 0 })).to.throw(RangeError);
    expect(() => run('auto', annualReport(), { targetWords: 0, maxWords: 10 })).to.throw(RangeError);
    const { chunks } = run('semantic', annualReport(), { targetWords: 5000, maxWords: 300 });
    expect(Math.max(...chunks.map((chunk) => chunk.wordCount))).to.be.at.most(300);
  });

  it('tolerates heading levels outside 1 to 6', () => {
    const document = makeDocument([
      heading('Zero', 0),
      paragraph(prose(120, 1)),
      heading('Nine', 9),
      paragraph(prose(120, 2)),
      heading('One', 1),
      paragraph(prose(120, 3)),
    ]);
    const { chunks } = run('semantic', document);
    expect(chunks.map((chunk) => chunk.sectionPath)).to.deep.equal([
      ['Zero'],
      ['Zero', 'Nine'],
      ['Zero', 'One'],
    ]);
    expect(chunks[1]?.content.startsWith('###### Nine')).to.equal(true);
  });

  it('gives no chunks for a document without blocks', () => {
    const { chunks, stats } = run('auto', makeDocument([]));
    expect(chunks).to.deep.equal([]);
    expect(stats).to.deep.include({ totalChunks: 0, totalWords: 0, sectionsFound: 0, avgChunkWords: 0 });
  });
});
