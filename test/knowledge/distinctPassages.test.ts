import { expect } from 'chai';
import { distinctPassages } from '../../src/knowledge/answer.js';
import type { SearchHit } from '../../src/knowledge/search.js';
import type { ChunkView } from '../../src/projections/knowledgeProjection.js';

const hit = (id: string, docId: string, text: string, score: number): SearchHit => {
  const chunk: ChunkView = {
    id,
    docId,
    index: 0,
    text,
    headings: '',
    sectionPath: [],
    heading: '',
    headingLevel: 0,
    pageStart: 1,
    pageEnd: 1,
    wordCount: text.split(' ').length,
    language: 'en',
    contentHash: id,
  };
  return {
    chunk,
    document: { id: docId, title: docId, source: docId, section: 'general', language: 'en' },
    score,
  };
};

describe('the sources of an answer', () => {
  it('are distinct passages: a passage a better hit already holds (white space aside) is left out', () => {
    const hits = [
      hit('a:0', 'a', 'Run npm install pino to install it.', 0.9),
      hit('b:3', 'b', 'Run  npm install pino\nto install it.', 0.8),
      hit('a:1', 'a', 'Pino is a fast logger.', 0.7),
    ];
    expect(distinctPassages(hits).map((kept) => kept.chunk.id)).to.deep.equal(['a:0', 'a:1']);
  });
});
