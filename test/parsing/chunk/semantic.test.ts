import { expect } from 'chai';
import { chunkDocument } from '../../../src/parsing/chunk/chunkDocument.js';
import type { ChunkingOptions } from '../../../src/parsing/chunk/model.js';
import { countWords } from '../../../src/text/words.js';
import { annualReport, heading, makeDocument, paragraph, prose } from './sampleDocuments.js';

const OPTIONS: ChunkingOptions = { mode: 'semantic', targetWords: 500, maxWords: 1500, documentId: 'doc-7' };
const TITLE = 'Annual Water Quality Report 2024';

describe('semantic chunking', () => {
  const { chunks, stats } = chunkDocument(annualReport(), OPTIONS);

  it('follows the heading structure of a 12-page report', () => {
    expect(chunks.map((chunk) => chunk.sectionPath.join(' > '))).to.deep.equal([
      TITLE,
      `${TITLE} > Treatment > Raw water`,
      `${TITLE} > Treatment > Raw water`,
      `${TITLE} > Treatment > Raw water`,
      `${TITLE} > Treatment > Filtration`,
      `${TITLE} > Distribution`,
      `${TITLE} > Sampling results`,
      `${TITLE} > Sampling results`,
      `${TITLE} > Sampling results`,
      `${TITLE} > Investment plan`,
      `${TITLE} > Investment plan`,
      `${TITLE} > Investment plan`,
      `${TITLE} > ملخص باللغة العربية`,
    ]);
    expect(chunks.map((chunk) => chunk.isContinuation)).to.deep.equal([
      false,
      false,
      true,
      true,
      false,
      false,
      false,
      true,
      true,
      false,
      true,
      true,
      false,
    ]);
  });

  it('names the innermost heading, its level, its section id and the pages of each chunk', () => {
    const rawWater = chunks.slice(1, 4);
    expect(rawWater.map((chunk) => [chunk.heading, chunk.headingLevel, chunk.parentSectionId])).to.deep.equal(
      [
        ['Raw water', 3, 'doc-7:s2'],
        ['Raw water', 3, 'doc-7:s2'],
        ['Raw water', 3, 'doc-7:s2'],
      ],
    );
    expect(rawWater.map((chunk) => [chunk.pageStart, chunk.pageEnd])).to.deep.equal([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
    expect(chunks[0]?.parentSectionId).to.equal('doc-7:s0');
    expect(chunks[12]?.heading).to.equal('ملخص باللغة العربية');
    expect(chunks[12]?.headingLevel).to.equal(2);
    expect([chunks[12]?.pageStart, chunks[12]?.pageEnd]).to.deep.equal([11, 12]);
  });

  it('carries an empty chapter heading into the first subsection', () => {
    expect(chunks[1]?.content.startsWith('## Treatment\n\n### Raw water\n\n')).to.equal(true);
  });

  it('merges tiny subsections into their parent section under the parent path', () => {
    const distribution = chunks[5];
    expect(distribution?.content).to.match(/^## Distribution\n\n/);
    for (const sub of ['### Pressure zones', '### Reservoirs', '### Hydrants']) {
      expect(distribution?.content).to.include(sub);
    }
    expect(distribution?.parentSectionId).to.equal('doc-7:s4');
    // Filtration (a non-tiny section of another chapter) was not pulled under a vaguer path.
    expect(chunks[4]?.content.startsWith('### Filtration')).to.equal(true);
    expect(chunks[4]?.content).not.to.include('## Distribution');
  });

  it('carries the images and tables of the blocks it holds, and the language of each chunk', () => {
    expect(chunks[4]?.images.map((image) => [image.pageNumber, image.data])).to.deep.equal([[3, null]]);
    expect(chunks.slice(6, 9).map((chunk) => chunk.tables.length)).to.deep.equal([1, 1, 1]);
    expect(chunks.map((chunk) => chunk.language)).to.deep.equal([...Array(12).fill('en'), 'ar']);
  });

  it('reports the statistics of the document', () => {
    expect(stats).to.deep.equal({
      strategyUsed: 'semantic',
      totalChunks: 13,
      sectionsFound: 11,
      pagesProcessed: 12,
      totalWords: stats.totalWords,
      headingDistribution: { 1: 1, 2: 5, 3: 5 },
      avgChunkWords: Math.round((chunks.reduce((sum, c) => sum + c.wordCount, 0) / 13) * 10) / 10,
    });
    expect(stats.totalWords).to.be.within(4000, 4300);
  });

  it('does not merge tiny top-level siblings, whose honest shared path would be empty', () => {
    const document = makeDocument([
      heading('Scope', 1),
      paragraph('This policy covers every site.'),
      heading('Owner', 1),
      paragraph('The operations director owns it.'),
      heading('Review', 1),
      paragraph('It is reviewed every year.'),
    ]);
    const result = chunkDocument(document, OPTIONS);
    expect(result.chunks.map((chunk) => chunk.sectionPath)).to.deep.equal([['Scope'], ['Owner'], ['Review']]);
  });

  it('merges tiny sibling sections under their shared parent', () => {
    const document = makeDocument([
      heading('Contacts', 1),
      heading('Billing', 2),
      paragraph('Call 0800 100 200 on weekdays.'),
      heading('Leaks', 2),
      paragraph('Report leaks at any hour on 0800 100 300.'),
      heading('Quality', 2),
      paragraph('Ask the laboratory about test results.'),
    ]);
    const result = chunkDocument(document, OPTIONS);
    expect(result.chunks).to.have.length(1);
    expect(result.chunks[0]?.sectionPath).to.deep.equal(['Contacts']);
    expect(result.chunks[0]?.parentSectionId).to.equal('doc-7:s0');
    expect(result.chunks[0]?.content).to.equal(
      '# Contacts\n\n## Billing\n\nCall 0800 100 200 on weekdays.\n\n## Leaks\n\nReport leaks at any hour on 0800 100 300.\n\n## Quality\n\nAsk the laboratory about test results.',
    );
  });

  it('splits a long section at paragraph, then sentence boundaries into balanced parts', () => {
    const long = prose(1300, 9);
    const document = makeDocument([heading('Operations', 1), paragraph(prose(200, 4)), paragraph(long)]);
    const result = chunkDocument(document, OPTIONS);
    const words = result.chunks.map((chunk) => chunk.wordCount);
    expect(words.every((count) => count <= 500)).to.equal(true);
    expect(result.chunks.length).to.be.within(3, 4);
    // Cuts fall between sentences: every chunk ends a sentence.
    for (const chunk of result.chunks) expect(chunk.content).to.match(/\.$/);
    expect(words.reduce((sum, count) => sum + count, 0)).to.equal(
      countWords(`# Operations ${prose(200, 4)} ${long}`),
    );
  });

  it('cuts a sentence without punctuation at word boundaries', () => {
    const run = Array.from({ length: 2600 }, (_, i) => `word${i}`).join(' ');
    const result = chunkDocument(makeDocument([heading('Log', 1), paragraph(run)]), OPTIONS);
    expect(result.chunks.map((chunk) => chunk.wordCount)).to.deep.equal([435, 434, 434, 434, 434, 430]);
    const joined = result.chunks.map((chunk) => chunk.content).join(' ');
    expect(joined.replace(/\s+/g, ' ') === `# Log ${run}`).to.equal(true);
  });

  it('puts text before the first heading in a chunk without a path or section', () => {
    const result = chunkDocument(
      makeDocument([paragraph(prose(80, 1)), heading('Details', 1), paragraph(prose(200, 2))]),
      OPTIONS,
    );
    expect(result.chunks[0]?.sectionPath).to.deep.equal([]);
    expect(result.chunks[0]?.heading).to.equal('');
    expect(result.chunks[0]?.headingLevel).to.equal(0);
    expect(result.chunks[0]?.parentSectionId).to.equal(null);
    expect(result.stats.sectionsFound).to.equal(2);
  });
});
