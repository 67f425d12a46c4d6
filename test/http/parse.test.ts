import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { expect } from 'chai';
import { minimalDocx } from '../parsing/office/zipWriter.js';
import { eventually, startTestApp, type TestApp } from '../support/testApp.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'documents');
const fixture = (path: string): Buffer => readFileSync(join(fixtures, path));

interface SseData {
  type: string;
  [key: string]: unknown;
}

/** Posts a multipart form to a streaming endpoint and collects its `data:` events until the server ends it. */
async function postSse(
  base: string,
  path: string,
  fields: Record<string, string>,
  file: { name: string; bytes: Buffer },
): Promise<SseData[]> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append('file', new Blob([new Uint8Array(file.bytes)]), file.name);
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    body: form,
    signal: AbortSignal.timeout(60_000),
  });
  expect(response.headers.get('content-type')).to.match(/text\/event-stream/);
  const text = await response.text();
  return text
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: '))
    .map((frame) => JSON.parse(frame.slice(6)) as SseData);
}

describe('parse endpoints', function () {
  this.timeout(60_000);
  let app: TestApp;
  let base: string;
  before(async () => {
    app = await startTestApp({ env: { PARSE_WORKERS: '2' } });
    base = (await app.server()).url;
  });
  after(async () => app.stop());

  describe('GET /api/v1/parse/formats', () => {
    it('lists every supported extension with a description', async () => {
      const { body } = await app.http.get('/api/v1/parse/formats').expect(200);
      expect(body.formats).to.have.members([
        '.txt',
        '.md',
        '.markdown',
        '.rst',
        '.pdf',
        '.docx',
        '.pptx',
        '.html',
        '.htm',
        '.json',
        '.csv',
        '.xlsx',
        '.odt',
        '.ods',
        '.odp',
        '.png',
        '.jpg',
        '.jpeg',
        '.tiff',
        '.tif',
        '.bmp',
      ]);
      for (const format of body.formats)
        expect(body.descriptions[format], format).to.be.a('string').and.not.empty;
      expect(body.incremental_formats).to.deep.equal([
        '.pdf',
        '.md',
        '.markdown',
        '.txt',
        '.html',
        '.htm',
        '.docx',
      ]);
    });
  });

  describe('POST /api/v1/parse', () => {
    it('parses a PDF: metadata, cleaned text, tables with markdown, the chart described, llm_ready', async () => {
      const { body } = await app.http
        .post('/api/v1/parse')
        .attach('file', fixture('pdf/report.pdf'), 'report.pdf')
        .expect(200);
      expect(body).to.include({
        success: true,
        source_file: 'report.pdf',
        format: '.pdf',
        tables_count: 3,
        images_count: 1,
      });
      expect(body.metadata).to.deep.equal({
        num_pages: 3,
        title: 'Quarterly Field Report',
        author: 'Amira Haddad',
        language: 'en',
      });
      expect(body.content.char_count).to.equal(body.content.cleaned_text.length);
      expect(body.content.cleaned_text).to.include('# Field Operations Review');
      const [first] = body.tables;
      expect(first).to.include({ index: 0, page_number: 1, rows: 4, cols: 3 });
      expect(first.content.split('\n')[0]).to.equal('Region | Stations | Readings');
      expect(first.markdown.split('\n').slice(0, 2)).to.deep.equal([
        '| Region | Stations | Readings |',
        '| --- | --- | --- |',
      ]);
      expect(body.images[0]).to.include({ index: 0, page_number: 2 });
      expect(body.images[0].description).to.match(/^PNG image, 480×300 px; looks like a chart/);
      expect(body.full_text).to.include('| Region | Stations | Readings |').and.include('[Image');
      expect(body.llm_ready.startsWith('# Quarterly Field Report\n\n')).to.equal(true);
      expect(body.pages.map((page: { has_text_layer: boolean }) => page.has_text_layer)).to.deep.equal([
        true,
        true,
        true,
      ]);
    });

    it('leaves tables and images out of full_text when asked, and keeps llm_ready whole without summarising', async () => {
      const { body } = await app.http
        .post('/api/v1/parse')
        .field('include_tables', 'false')
        .field('include_images', 'false')
        .field('summarize_llm_ready', 'false')
        .attach('file', fixture('pdf/report.pdf'), 'report.pdf')
        .expect(200);
      expect(body.full_text).to.not.include('| Region |').and.not.include('[Image');
      expect(body.tables_count).to.equal(3);
      expect(body.llm_ready).to.include('| Region | Stations | Readings |');
    });

    it('says a scanned page has no text unless OCR is enabled, and reads it when it is', async () => {
      const without = await app.http
        .post('/api/v1/parse')
        .attach('file', fixture('pdf/scanned.pdf'), 'scanned.pdf')
        .expect(200);
      const scanned = without.body.pages.find((page: { has_text_layer: boolean }) => !page.has_text_layer);
      expect(scanned).to.include({ ocr: 'skipped' });
      expect(scanned.note).to.match(/no text layer; set enable_ocr to read it/);
      const withOcr = await app.http
        .post('/api/v1/parse')
        .field('enable_ocr', 'true')
        .attach('file', fixture('pdf/scanned.pdf'), 'scanned.pdf')
        .expect(200);
      expect(withOcr.body.content.cleaned_text).to.include('DELIVERY NOTE 4471');
      expect(withOcr.body.pages.find((page: { ocr: string }) => page.ocr === 'applied')).to.not.equal(
        undefined,
      );
    });

    it('parses every other format family from real files', async () => {
      const cases: Array<[string, string, (body: Record<string, unknown>) => void]> = [
        [
          'office/report.docx',
          '.docx',
          (body) => expect((body['metadata'] as { num_pages: number }).num_pages).to.equal(2),
        ],
        [
          'office/slides.pptx',
          '.pptx',
          (body) => expect((body['metadata'] as { num_pages: number }).num_pages).to.equal(4),
        ],
        ['office/workbook.xlsx', '.xlsx', (body) => expect(body['tables_count']).to.be.at.least(2)],
        [
          'office/report.odt',
          '.odt',
          (body) => expect((body['metadata'] as { num_pages: number }).num_pages).to.equal(2),
        ],
        ['office/workbook.ods', '.ods', (body) => expect(body['tables_count']).to.equal(3)],
        [
          'office/slides.odp',
          '.odp',
          (body) => expect((body['metadata'] as { num_pages: number }).num_pages).to.equal(4),
        ],
        [
          'text/api-response.json',
          '.json',
          (body) => expect(String(body['full_text']).length).to.be.greaterThan(50),
        ],
        ['text/guide.rst', '.rst', (body) => expect(String(body['full_text'])).to.match(/^# /)],
        [
          'image/english.png',
          '.png',
          (body) =>
            expect(String((body['content'] as { cleaned_text: string }).cleaned_text)).to.match(/\w{4,}/),
        ],
      ];
      for (const [path, format, check] of cases) {
        const name = path.split('/').pop()!;
        const response = await app.http.post('/api/v1/parse').attach('file', fixture(path), name);
        expect(response.status, `${path}: ${JSON.stringify(response.body).slice(0, 300)}`).to.equal(200);
        expect(response.body.format).to.equal(format);
        check(response.body);
      }
    });

    it('rejects bad documents with a clear 4xx in the error shape', async () => {
      const cases: Array<[Buffer, string, number, string]> = [
        [fixture('pdf/encrypted.pdf'), 'encrypted.pdf', 422, 'encrypted_document'],
        [fixture('office/secret.docx'), 'secret.docx', 422, 'encrypted_document'],
        [fixture('pdf/report.pdf').subarray(0, 4_000), 'truncated.pdf', 422, 'corrupt_document'],
        [fixture('image/not-an-image.png'), 'not-an-image.png', 415, 'format_mismatch'],
        [fixture('pdf/report.pdf'), 'report.docx', 415, 'format_mismatch'],
        [fixture('office/workbook.ods'), 'workbook.odt', 415, 'format_mismatch'],
        [fixture('office/report.odt').subarray(0, 2_000), 'truncated.odt', 422, 'corrupt_document'],
        [minimalDocx('<w:p><w:r><w:t>never closed</w:t></w:r>'), 'unclosed.docx', 422, 'corrupt_document'],
        [Buffer.from('MZ\x90\x00binary'), 'program.exe', 415, 'unsupported_format'],
        [Buffer.alloc(0), 'empty.txt', 422, 'empty_document'],
        [Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), 'deep.json', 422, 'too_complex'],
        [Buffer.from(`${'<div>'.repeat(100_000)}`), 'deep.html', 422, 'too_complex'],
      ];
      for (const [bytes, name, status, error] of cases) {
        const response = await app.http.post('/api/v1/parse').attach('file', bytes, name);
        expect([response.status, response.body.error], name).to.deep.equal([status, error]);
        expect(response.body.detail).to.be.a('string').and.not.empty;
      }
    });

    it('validates the form fields', async () => {
      const missing = await app.http.post('/api/v1/parse').field('enable_ocr', 'true').expect(422);
      expect(missing.body.errors[0]).to.include({ field: 'file', message: 'is required (a file)' });
      const asText = await app.http.post('/api/v1/parse').field('file', 'not really a file').expect(422);
      expect(asText.body.detail).to.equal(
        'body.file must be a file part (with a filename in its Content-Disposition), not a text field',
      );
      const wrong = await app.http
        .post('/api/v1/parse')
        .field('table_mode', 'slow')
        .field('enable_ocr', 'maybe')
        .attach('file', Buffer.from('hello'), 'a.txt')
        .expect(422);
      expect(wrong.body.errors.map((e: { field: string }) => e.field)).to.have.members([
        'table_mode',
        'enable_ocr',
      ]);
      const two = await app.http
        .post('/api/v1/parse')
        .attach('file', Buffer.from('a'), 'a.txt')
        .attach('file', Buffer.from('b'), 'b.txt')
        .expect(422);
      expect(two.body.detail).to.match(/takes one file/);
      await app.http
        .post('/api/v1/parse')
        .set('Content-Type', 'application/json')
        .send({ file: 'x' })
        .expect(415);
    });
  });

  describe('POST /api/v1/parse/sections', () => {
    it('chunks by headings with paths, pages, ids and complete statistics', async () => {
      const { body } = await app.http
        .post('/api/v1/parse/sections')
        .field('chunking_mode', 'semantic')
        .field('target_chunk_words', '100')
        .attach('file', fixture('office/report.docx'), 'report.docx')
        .expect(200);
      expect(body).to.include({
        success: true,
        source_file: 'report.docx',
        format: '.docx',
        full_text: null,
      });
      expect(body.chunking_stats).to.include({
        strategy_used: 'semantic',
        total_chunks: body.chunks.length,
        pages_processed: 2,
      });
      expect(body.chunking_stats.heading_distribution).to.deep.equal({ '1': 3, '2': 2, '3': 1 });
      body.chunks.forEach((chunk: Record<string, unknown>, index: number) => {
        expect(chunk).to.include({ chunk_index: index, total_chunks: body.chunks.length });
        expect(chunk['chunk_id']).to.match(/^[0-9a-f]{16}:\d+$/);
      });
      expect(body.chunks.map((c: { section_path: string }) => c.section_path)).to.include('Results');
      const again = await app.http
        .post('/api/v1/parse/sections')
        .field('chunking_mode', 'semantic')
        .field('target_chunk_words', '100')
        .attach('file', fixture('office/report.docx'), 'report.docx');
      expect(again.body.chunks.map((c: { chunk_id: string }) => c.chunk_id)).to.deep.equal(
        body.chunks.map((c: { chunk_id: string }) => c.chunk_id),
      );
    });

    it('never exceeds max_chunk_words, splitting large tables by rows with the header repeated', async () => {
      const { body } = await app.http
        .post('/api/v1/parse/sections')
        .field('target_chunk_words', '40')
        .field('max_chunk_words', '60')
        .field('include_full_text', 'true')
        .attach('file', fixture('office/workbook.xlsx'), 'workbook.xlsx')
        .expect(200);
      for (const chunk of body.chunks) expect(chunk.word_count).to.be.at.most(60);
      expect(body.full_text).to.be.a('string').and.not.empty;
      const tableParts = body.chunks.filter((c: { tables: unknown[] }) => c.tables.length > 0);
      expect(tableParts.length).to.be.greaterThan(1);
    });

    it('uses one chunk per page in page mode and the whole document in disabled mode', async () => {
      const pages = await app.http
        .post('/api/v1/parse/sections')
        .field('chunking_mode', 'page')
        .attach('file', fixture('office/slides.pptx'), 'slides.pptx')
        .expect(200);
      expect(pages.body.chunking_stats.strategy_used).to.equal('page');
      expect(pages.body.chunks.map((c: { page_start: number }) => c.page_start)).to.deep.equal([1, 2, 3, 4]);
      const whole = await app.http
        .post('/api/v1/parse/sections')
        .field('chunking_mode', 'disabled')
        .attach('file', fixture('office/slides.pptx'), 'slides.pptx')
        .expect(200);
      expect(whole.body.chunks).to.have.length(1);
      expect(whole.body.chunking_stats.strategy_used).to.equal('disabled');
    });

    it('rejects target above max and out-of-range sizes', async () => {
      await app.http
        .post('/api/v1/parse/sections')
        .field('target_chunk_words', '900')
        .field('max_chunk_words', '100')
        .attach('file', Buffer.from('x'), 'a.txt')
        .expect(422);
      await app.http
        .post('/api/v1/parse/sections')
        .field('target_chunk_words', '0')
        .attach('file', Buffer.from('x'), 'a.txt')
        .expect(422);
      await app.http
        .post('/api/v1/parse/sections')
        .field('chunking_mode', 'magic')
        .attach('file', Buffer.from('x'), 'a.txt')
        .expect(422);
    });
  });

  describe('POST /api/v1/parse/sections/stream', () => {
    it('sends status, metadata, one section per chunk, stats and done', async () => {
      const events = await postSse(
        base,
        '/api/v1/parse/sections/stream',
        {},
        { name: 'slides.pptx', bytes: fixture('office/slides.pptx') },
      );
      const types = events.map((event) => event.type);
      expect(types.slice(0, 3)).to.deep.equal(['status', 'status', 'metadata']);
      expect(types.slice(-2)).to.deep.equal(['stats', 'done']);
      const sections = events.filter((event) => event.type === 'section');
      const stats = events.find((event) => event.type === 'stats')!['chunking_stats'] as {
        total_chunks: number;
      };
      expect(sections).to.have.length(stats.total_chunks);
      expect(sections[0]).to.include.all.keys(
        'chunk_id',
        'content',
        'section_path',
        'heading',
        'tables',
        'is_continuation',
      );
      expect(events[2]).to.deep.include({ source_file: 'slides.pptx', format: '.pptx' });
    });

    it('ends with an error event, then done, when the document cannot be parsed', async () => {
      const events = await postSse(
        base,
        '/api/v1/parse/sections/stream',
        {},
        { name: 'encrypted.pdf', bytes: fixture('pdf/encrypted.pdf') },
      );
      expect(events.map((event) => event.type)).to.deep.equal(['status', 'error', 'done']);
      expect(events[1]).to.include({ error: 'encrypted_document', status_code: 422 });
    });
  });

  describe('POST /api/v1/parse/sections/incremental', () => {
    it('streams a 54-page PDF page by page: metadata first, progress per page, chunks as they are ready', async () => {
      const events = await postSse(
        base,
        '/api/v1/parse/sections/incremental',
        { target_chunk_words: '200' },
        { name: 'long.pdf', bytes: fixture('pdf/long.pdf') },
      );
      expect(events[0]).to.deep.include({ type: 'metadata', total_pages: 54 });
      const progress = events.filter((event) => event.type === 'progress');
      expect(progress.map((event) => event['page'])).to.deep.equal(
        Array.from({ length: 54 }, (_, i) => i + 1),
      );
      expect(progress[9]!['message']).to.equal('page 10 of 54');
      const firstChunk = events.findIndex((event) => event.type === 'chunk');
      const lastProgress = events.lastIndexOf(progress.at(-1)!);
      expect(firstChunk).to.be.lessThan(lastProgress);
      const chunks = events.filter((event) => event.type === 'chunk');
      expect(chunks.map((chunk) => chunk['chunk_index'])).to.deep.equal(chunks.map((_, i) => i));
      const stats = events.at(-2)!;
      expect(stats['type']).to.equal('stats');
      const total = (stats['chunking_stats'] as { total_chunks: number }).total_chunks;
      expect(total).to.equal(chunks.length);
      // Every chunk carries an integer total_chunks (the spec's shape): the running count while the
      // document is parsed, never below chunk_index + 1 and never decreasing; the exact total, flagged
      // final, once it is known.
      const firstFinal = chunks.findIndex((chunk) => chunk['total_chunks_final'] === true);
      expect(firstFinal).to.be.greaterThan(0, 'some chunks are sent before the end');
      let previous = 0;
      chunks.forEach((chunk, index) => {
        const known = chunk['total_chunks'] as number;
        expect(Number.isInteger(known), `chunk ${index}`).to.equal(true);
        expect(known)
          .to.be.at.least(Math.max(index + 1, previous))
          .and.at.most(total);
        expect(chunk['total_chunks_final']).to.equal(index >= firstFinal);
        if (index >= firstFinal) expect(known).to.equal(total);
        previous = known;
      });
      expect(chunks.at(-1)).to.include({ total_chunks: total, total_chunks_final: true });
      expect(events.at(-1)).to.deep.equal({ type: 'done' });
    });

    it('accepts Markdown, text, HTML and DOCX, and refuses other formats before streaming', async () => {
      const docx = await postSse(
        base,
        '/api/v1/parse/sections/incremental',
        {},
        { name: 'report.docx', bytes: fixture('office/report.docx') },
      );
      expect(docx.at(-1)).to.deep.equal({ type: 'done' });
      expect(docx.filter((event) => event.type === 'progress').map((event) => event['page'])).to.deep.equal([
        1, 2,
      ]);
      const refused = await app.http
        .post('/api/v1/parse/sections/incremental')
        .attach('file', fixture('office/slides.pptx'), 'slides.pptx')
        .expect(415);
      expect(refused.body.error).to.equal('unsupported_format');
    });

    it('stops parsing when the client disconnects, and the server keeps serving', async () => {
      // The pool stops a job whose signal aborts (its own tests show that); here: the route hands it one that does.
      const parser = app.runtime.parser;
      const run = parser.run;
      let jobSignal: AbortSignal | undefined;
      parser.run = (job, signal) => {
        jobSignal = signal;
        return run.call(parser, job, signal);
      };
      try {
        await new Promise<void>((resolve, reject) => {
          const boundary = 'archivistboundary';
          const bytes = fixture('pdf/long.pdf');
          const head = Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="long.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
          );
          const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
          const request = httpRequest(`${base}/api/v1/parse/sections/incremental`, {
            method: 'POST',
            headers: {
              'Content-Type': `multipart/form-data; boundary=${boundary}`,
              'Content-Length': head.length + bytes.length + tail.length,
            },
          });
          request.on('response', (response) => {
            response.once('data', () => {
              request.destroy();
              resolve();
            });
          });
          request.on('error', (error) =>
            error.message.includes('socket hang up') ? resolve() : reject(error),
          );
          request.end(Buffer.concat([head, bytes, tail]));
        });
      } finally {
        parser.run = run;
      }
      await eventually(() => (jobSignal?.aborted ? true : undefined), 2_000, 'the parse job aborted');
      await app.http.get('/api/v1/health').expect(200);
      const quick = await app.http
        .post('/api/v1/parse')
        .attach('file', Buffer.from('# Still here\n\nThe server keeps working.'), 'ok.md')
        .expect(200);
      expect(quick.body.full_text).to.include('Still here');
    });
  });
});

describe('parse isolation', function () {
  this.timeout(60_000);
  it('fails a document that takes longer than allowed, alone, while other requests are served', async () => {
    const app = await startTestApp({ env: { PARSE_TIMEOUT_MS: '1000', PARSE_WORKERS: '2' } });
    // As the server does at start-up: the budget is for parsing, not for loading the parsers.
    await app.runtime.parser.warm();
    const slow = app.http
      .post('/api/v1/parse')
      .field('enable_ocr', 'true')
      .attach('file', fixture('image/a4-page.png'), 'a4-page.png');
    const health = await app.http.get('/api/v1/health').expect(200);
    expect(health.body.status).to.equal('healthy');
    const quick = await app.http
      .post('/api/v1/parse')
      .attach('file', Buffer.from('hello world'), 'hello.txt')
      .expect(200);
    expect(quick.body.full_text).to.include('hello world');
    const response = await slow;
    expect(response.status).to.equal(422);
    expect(response.body).to.include({ error: 'timeout' });
    expect(response.body.detail).to.match(/longer than the 1 s allowed/);
    await app.http
      .post('/api/v1/parse')
      .attach('file', Buffer.from('after the timeout'), 'after.txt')
      .expect(200);
    await app.stop();
  });

  it('rejects an upload over the size limit with 413 before parsing', async () => {
    const app = await startTestApp({ env: { MAX_UPLOAD_BYTES: '2048' } });
    const response = await app.http.post('/api/v1/parse').attach('file', Buffer.alloc(10_000, 65), 'big.txt');
    expect(response.status).to.equal(413);
    expect(response.body.error).to.equal('payload_too_large');
    await app.stop();
  });
});
