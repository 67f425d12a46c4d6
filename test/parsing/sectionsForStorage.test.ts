import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import { DEFAULT_PARSE_LIMITS, DEFAULT_PARSE_OPTIONS } from '../../src/parsing/context.js';
import {
  runParseJob,
  type ParseJob,
  type ParseServices,
  type SectionsResult,
} from '../../src/parsing/job.js';
import { contentHashOf } from '../../src/text/contentHash.js';

/** Services a text document never calls: any call fails the test. */
const unused = new Proxy(
  {},
  {
    get: (_target, name) => () => {
      throw new Error(`the parse called ${String(name)}`);
    },
  },
);
const services = { ocr: unused, describer: unused, summarizer: unused } as unknown as ParseServices;

async function sections(bytes: Uint8Array, extra: Partial<Extract<ParseJob, { kind: 'sections' }>>) {
  const job: ParseJob = {
    kind: 'sections',
    fileName: 'report.docx',
    bytes,
    options: DEFAULT_PARSE_OPTIONS,
    cleaning: { removeUrls: false, normalizeArabic: false },
    limits: DEFAULT_PARSE_LIMITS,
    chunking: { mode: 'auto', targetWords: 500, maxWords: 1500 },
    includeFullText: true,
    ...extra,
  };
  for await (const event of runParseJob(job, services, new AbortController().signal)) {
    if (event.type === 'result') return event.result as SectionsResult;
  }
  throw new Error('no result');
}

describe('a sections job for storage', () => {
  it('sends the chunks and the content hash of the full text, not the text or the blocks', async () => {
    const bytes = await readFile(new URL('../fixtures/documents/office/report.docx', import.meta.url));
    const shown = await sections(bytes, { includeFullText: true });
    const stored = await sections(bytes, { includeFullText: false, forStorage: true });
    expect(shown.fullText).to.be.a('string').and.not.equal('');
    expect(stored.contentHash).to.equal(contentHashOf(shown.fullText!));
    expect(stored.fullText).to.equal(null);
    expect(stored.document.blocks).to.deep.equal([]);
    expect(stored.document.pages).to.deep.equal([]);
    expect(stored.document.metadata).to.deep.equal(shown.document.metadata);
    expect(stored.document.format).to.equal(shown.document.format);
    expect(stored.chunks).to.deep.equal(shown.chunks);
    expect(shown.contentHash).to.equal(undefined);
  });
});
