import { expect } from 'chai';
import { chunkDocument } from '../../../src/parsing/chunk/chunkDocument.js';
import { createIncrementalChunker } from '../../../src/parsing/chunk/incremental.js';
import type { Chunk, ChunkingMode } from '../../../src/parsing/chunk/model.js';
import type { Block, ParsedDocument } from '../../../src/parsing/model.js';
import { annualReport, makeDocument, paragraph, prose } from './sampleDocuments.js';

function pagesOf(document: ParsedDocument): Block[][] {
  return Array.from({ length: document.metadata.numPages }, (_, i) =>
    document.blocks.filter((block) => block.page === i + 1),
  );
}

function streamed(document: ParsedDocument, mode: ChunkingMode) {
  const chunker = createIncrementalChunker({ mode, targetWords: 500, maxWords: 1500, documentId: 'inc' });
  const perPage = pagesOf(document).map((blocks) => chunker.push(blocks));
  const end = chunker.finish();
  return { perPage, end, all: [...perPage.flat(), ...end.chunks] };
}

const withoutTotal = (chunks: Chunk[]) => chunks.map((chunk) => ({ ...chunk, totalChunks: 0 }));

describe('incremental chunking', () => {
  for (const mode of ['semantic', 'page', 'paragraph', 'disabled'] as const) {
    it(`gives the same ${mode} chunks page by page as on the whole document`, () => {
      const document = annualReport();
      const whole = chunkDocument(document, { mode, targetWords: 500, maxWords: 1500, documentId: 'inc' });
      const { all, end } = streamed(document, mode);
      expect(withoutTotal(all)).to.deep.equal(withoutTotal(whole.chunks));
      // The chunks sent at the end carry the exact total; earlier ones the running count.
      for (const chunk of end.chunks) expect(chunk.totalChunks).to.equal(whole.chunks.length);
      expect(end.stats).to.deep.equal(whole.stats);
    });
  }

  it('sends chunks before the end, each with the running count of chunks known so far', () => {
    const { perPage } = streamed(annualReport(), 'auto');
    expect(perPage[0]).to.deep.equal([]);
    // Page 2 fills the first Raw water chunk, which releases the title section held before it.
    expect(perPage[1]?.map((chunk) => chunk.chunkIndex)).to.deep.equal([0, 1]);
    expect(perPage.slice(0, 10).flat().length).to.be.greaterThan(5);
    let known = 0;
    for (const batch of perPage) {
      known += batch.length;
      for (const chunk of batch) expect(chunk.totalChunks).to.equal(known);
    }
  });

  it('reports semantic for auto when headings were found, paragraph when none were', () => {
    expect(streamed(annualReport(), 'auto').end.stats.strategyUsed).to.equal('semantic');
    const plain = makeDocument([paragraph(prose(700, 1), 1), paragraph(prose(700, 2), 2)]);
    const { end, all } = streamed(plain, 'auto');
    expect(end.stats.strategyUsed).to.equal('paragraph');
    expect(end.stats.pagesProcessed).to.equal(2);
    expect(all.length).to.be.greaterThan(1);
  });

  it('refuses pages after finish', () => {
    const chunker = createIncrementalChunker({
      mode: 'auto',
      targetWords: 500,
      maxWords: 1500,
      documentId: 'd',
    });
    chunker.finish();
    expect(() => chunker.push([])).to.throw(/finished/);
    expect(() => chunker.finish()).to.throw(/finished/);
  });
});
