import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { PoolBusyError } from '../../src/parsing/worker/parsePool.js';
import { buildZip } from '../parsing/office/zipWriter.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

const MB = 1024 * 1024;

/**
 * A DOCX whose central directory says word/document.xml inflates to `declared` bytes while its data
 * is random bytes: inflating it fails at once (corrupt_document), so a refusal for memory proves
 * nothing was inflated. The ratio stays below the per-entry limit, so that check does not step in.
 */
function docxDeclaring(declared: number): Buffer {
  return buildZip([
    {
      name: '[Content_Types].xml',
      data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
    },
    { name: 'word/document.xml', deflated: { bytes: randomBytes(declared / 20), size: declared } },
  ]);
}

/** The same for an XLSX sheet. */
function xlsxDeclaring(declared: number): Buffer {
  return buildZip([
    {
      name: '[Content_Types].xml',
      data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    },
    {
      name: '_rels/.rels',
      data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data: `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    },
    { name: 'xl/worksheets/sheet1.xml', deflated: { bytes: randomBytes(declared / 20), size: declared } },
  ]);
}

describe('parse memory budget over HTTP', function () {
  this.timeout(60_000);

  describe('with the default budget', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ env: { PARSE_WORKERS: '1' } });
    });
    after(async () => app.stop());

    it('refuses a DOCX and an XLSX by the sizes their ZIP directory declares, before inflating anything', async () => {
      for (const [bytes, name, part] of [
        [docxDeclaring(40 * MB), 'declared.docx', 'word/document.xml alone to 40 MB'],
        [xlsxDeclaring(60 * MB), 'declared.xlsx', 'xl/worksheets/sheet1.xml alone to 60 MB'],
      ] as const) {
        const response = await app.http.post('/api/v1/parse').attach('file', bytes, name);
        expect(response.status, name).to.equal(413);
        expect(response.body).to.include({ error: 'too_large', status_code: 413 });
        expect(response.body.timestamp).to.be.a('string');
        expect(response.body.detail)
          .to.match(/^Parsing declared\.(docx|xlsx) would need about [\d,]+ MB of memory/)
          .and.contain(part)
          .and.contain('within 500 MB (PARSE_MEMORY_BUDGET_MB)');
      }
      expect(app.runtime.parser.stats()).to.include({ reservedBytes: 0, queued: 0 });
    });

    it('answers a streaming request refused by its estimate with a status, not a stream', async () => {
      const response = await app.http
        .post('/api/v1/parse/sections/stream')
        .attach('file', docxDeclaring(40 * MB), 'declared.docx');
      expect(response.status).to.equal(413);
      expect(response.headers['content-type']).to.match(/application\/json/);
      expect(response.body.error).to.equal('too_large');
    });

    it('records an upload refused by its estimate as success false with the reason, storing nothing', async () => {
      // None in a fresh app; in a cluster, what every suite left.
      const before = (await app.http.get('/api/v1/documents').expect(200)).body.total as number;
      const response = await app.http
        .post('/api/v1/upload')
        .attach('file', docxDeclaring(40 * MB), 'declared.docx')
        .expect(200);
      expect(response.body).to.include({ success: false, doc_id: null, chunks_added: 0 });
      expect(response.body.error).to.contain('would need about').and.contain('PARSE_MEMORY_BUDGET_MB');
      expect((await app.http.get('/api/v1/documents').expect(200)).body.total).to.equal(before);
    });

    it('answers 503 with Retry-After on a streaming endpoint when the parser has no room', async () => {
      const parser = app.runtime.parser;
      const run = parser.run;
      parser.run = () => {
        const refusal = new PoolBusyError('no room to parse it within 30 s');
        const started = Promise.reject(refusal);
        started.catch(() => undefined);
        return {
          started,
          releaseReservation: () => undefined,
          async *[Symbol.asyncIterator]() {
            yield* [];
            throw refusal;
          },
        };
      };
      try {
        const response = await app.http
          .post('/api/v1/parse/sections/incremental')
          .attach('file', Buffer.from('hello'), 'hello.txt');
        expect(response.status).to.equal(503);
        expect(response.headers['retry-after']).to.equal('10');
        expect(response.body).to.include({ error: 'busy', status_code: 503 });
      } finally {
        parser.run = run;
      }
    });
  });

  it('inflates the same DOCX when the budget allows it, and then finds it corrupt', async () => {
    // The control for the refusal above: with room enough, the parts are read and the damage shows.
    const app = await startTestApp({ env: { PARSE_WORKERS: '1', PARSE_MEMORY_BUDGET_MB: '100000' } });
    try {
      const response = await app.http
        .post('/api/v1/parse')
        .attach('file', docxDeclaring(40 * MB), 'declared.docx');
      expect(response.status).to.equal(422);
      expect(response.body.error).to.equal('corrupt_document');
    } finally {
      await app.stop();
    }
  });

  it('applies the configured table caps to every parse', async () => {
    const app = await startTestApp({ env: { PARSE_WORKERS: '1', PARSE_MAX_ROW_FIELDS: '5' } });
    try {
      const response = await app.http
        .post('/api/v1/parse')
        .attach('file', Buffer.from('a,b,c,d,e,f\n1,2,3,4,5,6\n'), 'wide.csv');
      expect(response.status).to.equal(413);
      expect(response.body.detail)
        .to.contain('line 1 has more than 5 fields')
        .and.contain('PARSE_MAX_ROW_FIELDS');
    } finally {
      await app.stop();
    }
  });
});
