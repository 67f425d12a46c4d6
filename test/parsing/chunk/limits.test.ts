import { expect } from 'chai';
import { chunkDocument } from '../../../src/parsing/chunk/chunkDocument.js';
import type { ChunkingMode } from '../../../src/parsing/chunk/model.js';
import { cleanDocument } from '../../../src/parsing/clean/cleanDocument.js';
import { countWords } from '../../../src/text/words.js';
import type { Table } from '../../../src/parsing/model.js';
import {
  ARABIC_SENTENCES,
  annualReport,
  heading,
  list,
  makeDocument,
  paragraph,
  prose,
  samplingTable,
  tableBlock,
} from './sampleDocuments.js';

const MODES: ChunkingMode[] = ['auto', 'semantic', 'page', 'paragraph', 'disabled'];

/** Documents meant to stress the limits: long lists, long cells, a run-on sentence, Arabic. */
function awkwardDocument() {
  const longCell = prose(700, 5);
  return makeDocument([
    heading('Appendix', 1, 1),
    list(
      Array.from({ length: 120 }, (_, i) => `Item ${i + 1}: ${prose(12, i)}`),
      1,
      true,
    ),
    tableBlock(
      [
        ['Question', 'Answer'],
        ['Why?', longCell],
        ['When?', 'Soon.'],
      ],
      2,
      0,
    ),
    paragraph(Array.from({ length: 3000 }, (_, i) => `token${i}`).join(' '), 3),
    heading('خلاصة', 2, 4),
    paragraph(prose(900, 8, ARABIC_SENTENCES), 4),
  ]);
}

describe('chunk limits', () => {
  for (const mode of MODES) {
    for (const [targetWords, maxWords] of [
      [500, 1500],
      [120, 150],
      [40, 40],
      [1, 1],
    ] as const) {
      it(`keeps every ${mode} chunk within ${maxWords} words (target ${targetWords}) and counts words exactly`, () => {
        for (const document of [annualReport(), awkwardDocument()]) {
          const { chunks, stats } = chunkDocument(document, { mode, targetWords, maxWords, documentId: 'x' });
          expect(chunks.length).to.be.greaterThan(0);
          for (const [i, chunk] of chunks.entries()) {
            expect(chunk.wordCount, `chunk ${i}`).to.be.at.most(maxWords);
            expect(chunk.wordCount).to.equal(countWords(chunk.content));
            expect(chunk.chunkIndex).to.equal(i);
            expect(chunk.chunkId).to.equal(`x:${i}`);
            expect(chunk.pageStart).to.be.at.most(chunk.pageEnd);
            expect(chunk.content.trim()).to.equal(chunk.content);
          }
          // Nothing lost: chunk words cover the document's words (repeated table headers only add).
          const chunkWords = chunks.reduce((sum, chunk) => sum + chunk.wordCount, 0);
          expect(chunkWords).to.be.at.least(stats.totalWords);
          expect(stats.totalChunks).to.equal(chunks.length);
        }
      });
    }
  }
});

describe('table splitting', () => {
  const document = makeDocument([
    heading('Samples', 1),
    tableBlock(samplingTable(200), 1, 0, 'Table 1: Network samples'),
  ]);
  const { chunks } = chunkDocument(document, {
    mode: 'semantic',
    targetWords: 200,
    maxWords: 300,
    documentId: 't',
  });
  const parts = chunks.flatMap((chunk) => chunk.tables);

  it('splits a 200-row table by rows with the header row repeated in every part', () => {
    expect(parts.length).to.equal(chunks.length);
    expect(parts.length).to.be.within(6, 8);
    for (const part of parts) {
      expect(part.index).to.equal(0);
      expect(part.hasHeader).to.equal(true);
      expect(part.cells[0]).to.deep.equal(['Sample', 'Zone', 'Chlorine mg/l', 'Turbidity NTU', 'Result']);
      expect(part.caption).to.equal('Table 1: Network samples');
    }
    const rows = parts.flatMap((part: Table) => part.cells.slice(1));
    expect(rows).to.deep.equal(samplingTable(200).slice(1));
  });

  it('renders each part as a Markdown table in the chunk content', () => {
    for (const chunk of chunks) {
      const lines = chunk.content.split('\n').filter((line) => line.startsWith('|'));
      expect(lines[0]).to.equal('| Sample | Zone | Chlorine mg/l | Turbidity NTU | Result |');
      expect(lines[1]).to.equal('| --- | --- | --- | --- | --- |');
      expect(lines.length - 2).to.equal(
        chunk.tables[0]?.cells.length === undefined ? -1 : chunk.tables[0].cells.length - 1,
      );
    }
    expect(chunks.map((chunk) => chunk.isContinuation)).to.deep.equal(chunks.map((_, i) => i > 0));
  });

  it('balances the parts instead of leaving a small tail', () => {
    const rowsPerPart = parts.map((part) => part.cells.length - 1);
    expect(Math.max(...rowsPerPart) - Math.min(...rowsPerPart)).to.be.at.most(3);
  });

  it('keeps a table that fits the target whole', () => {
    const small = makeDocument([tableBlock(samplingTable(20), 1, 0)]);
    const result = chunkDocument(small, {
      mode: 'semantic',
      targetWords: 500,
      maxWords: 1500,
      documentId: 's',
    });
    expect(result.chunks).to.have.length(1);
    expect(result.chunks[0]?.tables[0]?.cells).to.have.length(21);
  });
});

describe('pathological text', () => {
  const cases: Record<string, string> = {
    'a 2 MB word without spaces ending in a line-end hyphen': `${'a'.repeat(2_000_000)}-\nb`,
    '200,000 unclosed brackets before a URL': `${'['.repeat(200_000)} https://example.org`,
    '500,000 spaces before a URL': `x${' '.repeat(500_000)}https://example.org`,
    'a million dots': `${'.'.repeat(1_000_000)} A`,
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`cleans and chunks ${name} in linear time`, function () {
      this.timeout(5000);
      const started = Date.now();
      const document = cleanDocument(makeDocument([paragraph(text)]), {
        removeUrls: true,
        normalizeArabic: true,
      });
      const { chunks } = chunkDocument(document, {
        mode: 'auto',
        targetWords: 500,
        maxWords: 1500,
        documentId: 'p',
      });
      expect(chunks.length).to.be.at.least(1);
      expect(chunks.every((chunk) => chunk.wordCount <= 1500)).to.equal(true);
      expect(Date.now() - started).to.be.below(2000);
    });
  }
});
