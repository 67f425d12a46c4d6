import { expect } from 'chai';
import type { ParseContext } from '../../../src/parsing/context.js';
import type { ParsedDocument } from '../../../src/parsing/model.js';
import { parseDocx } from '../../../src/parsing/office/parseDocx.js';
import { parsePptx } from '../../../src/parsing/office/parsePptx.js';
import { parseXlsx } from '../../../src/parsing/office/parseXlsx.js';
import { expectParseError } from '../expectParseError.js';
import { context, fixture } from './helpers.js';
import { buildZip, deflatedZeros, minimalDocx, rewriteZip } from './zipWriter.js';

type Parser = (bytes: Uint8Array, ctx: ParseContext) => Promise<ParsedDocument>;

const GiB = 1024 * 1024 * 1024;
const RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** For each format: its parser, a real fixture, and the main part a bomb hides in. */
const formats: { ext: string; parse: Parser; real: string; main: string }[] = [
  { ext: 'docx', parse: parseDocx, real: 'report.docx', main: 'word/document.xml' },
  { ext: 'pptx', parse: parsePptx, real: 'slides.pptx', main: 'ppt/presentation.xml' },
  { ext: 'xlsx', parse: parseXlsx, real: 'workbook.xlsx', main: 'xl/workbook.xml' },
];

function packageRels(main: string): string {
  return `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELS}/officeDocument" Target="${main}"/></Relationships>`;
}

let manyEntries: Buffer | undefined;
/** 100,000 empty entries (12 MB): built once, shared by the three formats. */
function hundredThousandEntries(): Buffer {
  manyEntries ??= buildZip(
    Array.from({ length: 100_000 }, (_, i) => ({ name: `f${i}.xml`, data: '', method: 0 })),
  );
  return manyEntries;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

describe('office parsers on bad input', () => {
  for (const { ext, parse, real, main } of formats) {
    describe(`.${ext}`, () => {
      it(`rejects a ${ext.toUpperCase()}-shaped ZIP whose ${main} inflates to 1 GiB of zeros, in well under a second`, async () => {
        const bomb = buildZip([
          { name: '_rels/.rels', data: packageRels(main) },
          { name: main, deflated: deflatedZeros(GiB) },
        ]);
        const ms = await timed(() => expectParseError(parse(bomb, context(`bomb.${ext}`)), 'too_large'));
        expect(ms).to.be.below(500);
      });

      it(`rejects a ${ext.toUpperCase()} whose ${main} header lies about its size`, async () => {
        const liar = buildZip([
          { name: '_rels/.rels', data: packageRels(main) },
          { name: main, deflated: deflatedZeros(GiB), declaredSize: 2048 },
        ]);
        const ms = await timed(() =>
          expectParseError(parse(liar, context(`liar.${ext}`)), 'corrupt_document'),
        );
        expect(ms).to.be.below(500);
      });

      it('rejects a ZIP with 100,000 entries (too_complex), quickly', async () => {
        hundredThousandEntries();
        const ms = await timed(() =>
          expectParseError(parse(hundredThousandEntries(), context(`many.${ext}`)), 'too_complex'),
        );
        expect(ms).to.be.below(500);
      });

      it('rejects an entry that climbs out of the archive with ../', async () => {
        const bytes = await rewriteZip(fixture(real), { '../../etc/cron.d/evil': 'x' });
        await expectParseError(parse(bytes, context(`evil.${ext}`)), 'corrupt_document');
      });

      it('rejects the password-protected file LibreOffice wrote (an encrypted OLE file)', async () => {
        const error = await expectParseError(
          parse(fixture('secret.docx'), context(`secret.${ext}`)),
          'encrypted_document',
        );
        expect(error.message).to.match(/password/);
      });

      it('rejects truncated and garbage bytes as corrupt, zero bytes as empty', async () => {
        const bytes = fixture(real);
        await expectParseError(
          parse(bytes.subarray(0, Math.floor(bytes.length / 2)), context(`cut.${ext}`)),
          'corrupt_document',
        );
        await expectParseError(
          parse(Buffer.from('%PDF-1.7 not office'), context(`pdf.${ext}`)),
          'corrupt_document',
        );
        await expectParseError(parse(new Uint8Array(0), context(`empty.${ext}`)), 'empty_document');
      });

      it(`rejects a ZIP without ${main} as corrupt_document`, async () => {
        await expectParseError(
          parse(buildZip([{ name: 'hello.txt', data: 'hi' }]), context(`plain.${ext}`)),
          'corrupt_document',
        );
      });

      it('rejects a main part nested deeper than maxNestingDepth (too_complex), quickly', async () => {
        const deep = `${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}`;
        const bytes = buildZip([
          { name: '_rels/.rels', data: packageRels(main) },
          { name: main, data: deep },
        ]);
        const ms = await timed(() => expectParseError(parse(bytes, context(`deep.${ext}`)), 'too_complex'));
        expect(ms).to.be.below(1000);
      });

      it('refuses a part that declares a DTD (the way entity bombs get in)', async () => {
        const lol = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><w:document>&lol2;</w:document>`;
        const bytes = buildZip([
          { name: '_rels/.rels', data: packageRels(main) },
          { name: main, data: lol },
        ]);
        await expectParseError(parse(bytes, context(`lol.${ext}`)), 'corrupt_document');
      });

      it('refuses a main part whose elements are left open or closed out of order (corrupt_document, with where)', async () => {
        const broken = [
          '<root><w:body><w:p><w:t>text</w:t></w:body></root>',
          '<root><w:body><w:p><w:t>text</w:t></w:p>',
        ];
        for (const xml of broken) {
          const bytes = buildZip([
            { name: '_rels/.rels', data: packageRels(main) },
            { name: main, data: xml },
          ]);
          const error = await expectParseError(parse(bytes, context(`open.${ext}`)), 'corrupt_document');
          expect(error.message).to.match(
            /^\S+ is not well-formed XML: <w:\w+> opened at line 1, column \d+ is (never closed|closed by <\/w:body>)/,
          );
        }
      });

      it('stops at once when the caller has already gone away (aborted)', async () => {
        const controller = new AbortController();
        controller.abort();
        await expectParseError(parse(fixture(real), context(real, { signal: controller.signal })), 'aborted');
      });

      it('refuses more text than maxTextChars (too_large)', async () => {
        await expectParseError(
          parse(fixture(real), context(real, { limits: { maxTextChars: 20 } })),
          'too_large',
        );
      });
    });
  }

  it('rejects a DOCX handed to the PowerPoint and Excel parsers, and the reverse', async () => {
    await expectParseError(parsePptx(fixture('report.docx'), context('report.pptx')), 'corrupt_document');
    await expectParseError(parseXlsx(fixture('report.docx'), context('report.xlsx')), 'corrupt_document');
    await expectParseError(parseDocx(fixture('workbook.xlsx'), context('workbook.docx')), 'corrupt_document');
  });

  it('rejects a Word document with an empty body (empty_document)', async () => {
    await expectParseError(
      parseDocx(minimalDocx('<w:p/><w:p><w:r><w:t>   </w:t></w:r></w:p>'), context('blank.docx')),
      'empty_document',
    );
  });

  it('refuses a table whose gridSpan asks for a billion columns instead of allocating them', async () => {
    const body = `<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="1000000000"/></w:tcPr><w:p><w:r><w:t>wide</w:t></w:r></w:p></w:tc></w:tr></w:tbl>`;
    const doc = await parseDocx(minimalDocx(body), context('wide.docx'));
    const table = doc.blocks.find((b) => b.type === 'table');
    expect(table?.type === 'table' ? table.table.cells[0]?.length : 0).to.equal(1000, 'spans are clamped');
    await expectParseError(
      parseDocx(minimalDocx(body), context('wide.docx', { limits: { maxCells: 500 } })),
      'too_large',
    );
  });

  it('keeps going past a picture whose media part is missing, with a warning', async () => {
    const body = `<w:p><w:r><w:t>Text</w:t></w:r><w:r><w:drawing><wp:inline xmlns:wp="wp"><wp:docPr id="1" name="p" descr="gone"/><a:graphic xmlns:a="a"><a:graphicData><pic:pic xmlns:pic="pic"><pic:blipFill><a:blip r:embed="rId7"/></pic:blipFill></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
    const rels = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId7" Type="${RELS}/image" Target="media/gone.png"/></Relationships>`;
    const doc = await parseDocx(
      minimalDocx(body, { 'word/_rels/document.xml.rels': rels }),
      context('gone.docx'),
    );
    expect(doc.blocks.map((b) => b.type)).to.deep.equal(['paragraph']);
    expect(doc.warnings).to.deep.equal([
      'image word/media/gone.png is referenced but missing from the package',
    ]);
  });
});
