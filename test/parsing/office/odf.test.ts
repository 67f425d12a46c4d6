import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { detectFormat } from '../../../src/parsing/detect/detectFormat.js';
import type { Block, ParsedDocument } from '../../../src/parsing/model.js';
import { images, tables } from '../../../src/parsing/model.js';
import { parseDocx } from '../../../src/parsing/office/parseDocx.js';
import { parseOdp, parseOds, parseOdt } from '../../../src/parsing/office/parseOdf.js';
import { parsePptx } from '../../../src/parsing/office/parsePptx.js';
import { parseXlsx } from '../../../src/parsing/office/parseXlsx.js';
import { openSafeZip } from '../../../src/parsing/office/safeZip.js';
import { expectParseError } from '../expectParseError.js';
import { context, fixture } from './helpers.js';
import { buildOdf, odfContent } from './odfWriter.js';
import { buildZip, deflatedZeros, rewriteZip } from './zipWriter.js';

const realOdt = readFileSync(
  fileURLToPath(new URL('../../fixtures/documents/text/detect/report.odt', import.meta.url)),
);

/** Blocks without image bytes, comparable across formats. */
function outline(doc: ParsedDocument): unknown[] {
  return doc.blocks.map((b) => {
    if (b.type === 'image')
      return { type: 'image', page: b.page, alt: b.image.altText, format: b.image.format };
    if (b.type === 'table') return { type: 'table', page: b.page, cells: b.table.cells };
    return b;
  });
}

function texts(doc: ParsedDocument): string[] {
  return doc.blocks.flatMap((b: Block) =>
    b.type === 'heading' || b.type === 'paragraph'
      ? [`${b.type[0]}${b.type === 'heading' ? b.level : ''} ${b.text}`]
      : [],
  );
}

const p = (text: string, style = 'Standard'): string => `<text:p text:style-name="${style}">${text}</text:p>`;

describe('OpenDocument parsers', () => {
  describe('report.odt (packaged from report.fodt, the source of report.docx)', () => {
    let odt: ParsedDocument;
    before(async () => {
      odt = await parseOdt(fixture('report.odt'), context('uploads/report.odt'));
    });

    it('reads the same headings, lists, merged table, picture and pages as its DOCX twin', async () => {
      const docx = await parseDocx(fixture('report.docx'), context('report.docx'));
      expect(outline(odt)).to.deep.equal(outline(docx));
    });

    it('takes title, author and dates from meta.xml', () => {
      expect(odt.format).to.equal('.odt');
      expect(odt.sourceFile).to.equal('report.odt');
      expect(odt.metadata).to.deep.include({
        title: 'Quarterly Field Report',
        author: 'Amina Haddad',
        numPages: 2,
      });
      expect(odt.metadata.extra).to.include({
        subject: 'Water and soil survey',
        created: '2024-03-01T09:30:00',
      });
    });
  });

  it('reads an ODT written by LibreOffice itself: numbered headings, pages from its page breaks', async () => {
    const doc = await parseOdt(realOdt, context('report.odt'));
    expect(
      doc.blocks
        .filter((b) => b.type === 'heading')
        .map((b) => (b.type === 'heading' ? [b.text, b.level, b.page] : null)),
    ).to.deep.equal([
      ['1 Introduction', 1, 1],
      ['1.1 Scope', 2, 1],
      ['2 Results', 1, 2],
      ['2.1 Seasonal variation', 2, 2],
      ['2.1.1 Summer minimum', 3, 2],
      ['3 Conclusions', 1, 3],
    ]);
    expect(tables(doc)[0]?.cells[0]).to.deep.equal(['Station', 'Oxygen (mg/L)', 'Nitrate (mg/L)']);
    expect(doc.metadata).to.include({ title: 'River water quality 2023', numPages: 3 });
  });

  it('workbook.ods reads like workbook.xlsx: sheets as sections, values typed alike, merged value once, hidden sheet noted', async () => {
    const ods = await parseOds(fixture('workbook.ods'), context('workbook.ods'));
    const xlsx = await parseXlsx(fixture('workbook.xlsx'), context('workbook.xlsx'));
    expect(outline(ods)).to.deep.equal(outline(xlsx));
    expect(tables(ods).map((t) => [t.caption, t.hasHeader])).to.deep.equal(
      tables(xlsx).map((t) => [t.caption, t.hasHeader]),
    );
    expect(ods.pages.map((page) => page.note)).to.deep.equal(xlsx.pages.map((page) => page.note));
    expect(ods.metadata.extra).to.include({ sheets: 'Sales, Summary, Lookup', hiddenSheets: 'Lookup' });
  });

  it('slides.odp reads like slides.pptx: a page per slide, titles as headings, list, table, picture, speaker notes', async () => {
    const odp = await parseOdp(fixture('slides.odp'), context('slides.odp'));
    const pptx = await parsePptx(fixture('slides.pptx'), context('slides.pptx'));
    expect(texts(odp)).to.deep.equal(texts(pptx));
    expect(tables(odp)[0]?.cells).to.deep.equal(tables(pptx)[0]?.cells);
    expect(images(odp).map((i) => [i.pageNumber, i.altText])).to.deep.equal([
      [4, 'Photo of the northern sampling site'],
    ]);
    expect(odp.metadata).to.include({ title: 'Field Survey 2024', numPages: 4 });
  });

  describe('text constructs', () => {
    it('keeps footnotes after the citing paragraph and endnotes at the end, each linked by its citation', async () => {
      const body = [
        p(
          'Rivers<text:note text:id="ftn1" text:note-class="footnote"><text:note-citation>1</text:note-citation><text:note-body><text:p>Measured in May.</text:p></text:note-body></text:note> were sampled.',
        ),
        p(
          'Nitrate rose<text:note text:id="edn1" text:note-class="endnote"><text:note-citation>i</text:note-citation><text:note-body><text:p>See the annex.</text:p></text:note-body></text:note>.',
        ),
        p('Last paragraph.'),
      ].join('');
      const doc = await parseOdt(buildOdf('text', { body }), context('notes.odt'));
      expect(texts(doc)).to.deep.equal([
        'p Rivers[1] were sampled.',
        'p [1] Measured in May.',
        'p Nitrate rose[i].',
        'p Last paragraph.',
        'p [i] See the annex.',
      ]);
    });

    it('reads Title and Subtitle paragraphs as headings 1 and 2, text:h at its outline level or its style’s', async () => {
      const styles =
        '<style:style style:name="Title" style:family="paragraph"/><style:style style:name="Subtitle" style:family="paragraph"/>' +
        '<style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph" style:default-outline-level="2"/>';
      const automaticStyles =
        '<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Subtitle"/>';
      const body = `${p('Annual Report', 'Title')}${p('Rivers and lakes', 'P1')}<text:h text:style-name="Heading_20_2">Styled level</text:h><text:h text:outline-level="4">Explicit level</text:h>${p('Body.')}`;
      const doc = await parseOdt(buildOdf('text', { body, styles, automaticStyles }), context('t.odt'));
      expect(texts(doc)).to.deep.equal([
        'h1 Annual Report',
        'h2 Rivers and lakes',
        'h2 Styled level',
        'h4 Explicit level',
        'p Body.',
      ]);
      expect(doc.metadata.title).to.equal('Test');
    });

    it('keeps text boxes and shapes with text after their anchor paragraph, and nested lists indented', async () => {
      const body = [
        p(
          'Before<draw:frame draw:name="Box"><draw:text-box><text:p>Inside the box.</text:p></draw:text-box></draw:frame> after.',
        ),
        '<draw:custom-shape draw:name="Arrow"><text:p>Shape label</text:p></draw:custom-shape>',
        '<text:list><text:list-item><text:p>One</text:p><text:list><text:list-item><text:p>One.a</text:p></text:list-item></text:list></text:list-item><text:list-item><text:p>Two</text:p></text:list-item></text:list>',
        '<text:table-of-content><text:index-body><text:p>Contents 1</text:p></text:index-body></text:table-of-content>',
        p(
          'Kept<office:annotation><text:p>a reviewer comment</text:p></office:annotation> text<text:s text:c="3"/>with<text:tab/>tabs<text:line-break/>and lines.',
        ),
      ].join('');
      const doc = await parseOdt(buildOdf('text', { body }), context('boxes.odt'));
      expect(
        doc.blocks.map((b) => (b.type === 'list' ? b.items : b.type === 'paragraph' ? b.text : b.type)),
      ).to.deep.equal([
        'Before after.',
        'Inside the box.',
        'Shape label',
        ['One', '  One.a', 'Two'],
        'Kept text with tabs\nand lines.',
      ]);
    });

    it('counts pages from page-break styles and soft page breaks', async () => {
      const automaticStyles =
        '<style:style style:name="Break" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/></style:style>';
      const body = `${p('One')}<text:soft-page-break/>${p('Two')}${p('Three', 'Break')}`;
      const doc = await parseOdt(buildOdf('text', { body, automaticStyles }), context('pages.odt'));
      expect(doc.blocks.map((b) => b.page)).to.deep.equal([1, 2, 3]);
      expect(doc.metadata.numPages).to.equal(3);
    });
  });

  describe('repeated rows and columns', () => {
    const sheet = (rows: string): Buffer =>
      buildOdf('spreadsheet', { body: `<table:table table:name="Data">${rows}</table:table>` });
    const cell = (text: string, attrs = ''): string =>
      `<table:table-cell office:value-type="string"${attrs}><text:p>${text}</text:p></table:table-cell>`;

    it('expands filled repeats and skips empty ones, however large, keeping the used range only', async () => {
      const rows = [
        `<table:table-row table:number-rows-repeated="1000000000"><table:table-cell table:number-columns-repeated="1000000000"/></table:table-row>`,
      ];
      await expectParseError(parseOds(sheet(rows.join('')), context('blank.ods')), 'empty_document');
      const data = [
        `<table:table-row>${cell('a')}${cell('b', ' table:number-columns-repeated="2"')}<table:table-cell table:number-columns-repeated="1000000000"/></table:table-row>`,
        `<table:table-row table:number-rows-repeated="2">${cell('x')}<table:table-cell table:style-name="Fancy" table:number-columns-repeated="16380"/></table:table-row>`,
        `<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>`,
      ].join('');
      const started = performance.now();
      const doc = await parseOds(sheet(data), context('sheet.ods'));
      expect(performance.now() - started).to.be.below(500);
      expect(tables(doc)[0]?.cells).to.deep.equal([
        ['a', 'b', 'b'],
        ['x', '', ''],
        ['x', '', ''],
      ]);
    });

    it('refuses a filled cell repeated a billion times, or a filled row repeated past maxRows, at once and without allocating', async () => {
      const wide = `<table:table-row>${cell('x', ' table:number-columns-repeated="1000000000"')}</table:table-row>`;
      const tall = `<table:table-row table:number-rows-repeated="1000000000">${cell('y')}</table:table-row>`;
      for (const [name, rows, limits] of [
        ['wide', wide, {}],
        ['tall', tall, { maxRows: 1000 }],
      ] as const) {
        const started = performance.now();
        const error = await expectParseError(
          parseOds(sheet(rows), context(`${name}.ods`, { limits })),
          'too_large',
        );
        expect(performance.now() - started, name).to.be.below(500);
        expect(error.message).to.match(/columns|rows/);
      }
      const odt = buildOdf('text', { body: `<table:table>${wide}</table:table>` });
      await expectParseError(parseOdt(odt, context('wide.odt')), 'too_large');
    });
  });

  describe('hostile and broken packages', () => {
    const GiB = 1024 * 1024 * 1024;

    it('rejects a content.xml that inflates to 1 GiB (too_large), quickly', async () => {
      const bomb = buildZip([
        { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', method: 0 },
        { name: 'content.xml', deflated: deflatedZeros(GiB) },
      ]);
      const started = performance.now();
      await expectParseError(parseOdt(bomb, context('bomb.odt')), 'too_large');
      expect(performance.now() - started).to.be.below(500);
    });

    it('rejects an entry that climbs out of the archive, and a lying size, as corrupt', async () => {
      const evil = await rewriteZip(fixture('report.odt'), { '../../etc/evil': 'x' });
      await expectParseError(parseOdt(evil, context('evil.odt')), 'corrupt_document');
      const liar = buildZip([
        { name: 'mimetype', data: 'application/vnd.oasis.opendocument.spreadsheet', method: 0 },
        { name: 'content.xml', deflated: deflatedZeros(GiB), declaredSize: 2048 },
      ]);
      await expectParseError(parseOds(liar, context('liar.ods')), 'corrupt_document');
    });

    it('rejects malformed XML, a DTD, a missing content.xml or body, and the wrong kind as corrupt_document', async () => {
      const cases: [string, Buffer][] = [
        [
          'malformed',
          buildOdf('text', {
            body: '',
            parts: {
              'content.xml':
                '<office:document-content><office:body><office:text><text:p text:style-name="P1>x</text:p>',
            },
          }),
        ],
        ['not xml', buildOdf('text', { body: '', parts: { 'content.xml': 'PK not xml at all' } })],
        [
          'dtd',
          buildOdf('text', {
            body: '',
            parts: {
              'content.xml':
                '<!DOCTYPE x [<!ENTITY a "aaaa">]><office:document-content>&a;</office:document-content>',
            },
          }),
        ],
        ['missing', buildOdf('text', { body: '', parts: { 'content.xml': null } })],
        ['kind', buildOdf('spreadsheet', { body: '<table:table/>' })],
        [
          'mimetype',
          buildOdf('text', { body: p('x'), mimetype: 'application/vnd.oasis.opendocument.graphics' }),
        ],
        ['docx', Buffer.from(fixture('report.docx'))],
      ];
      for (const [name, bytes] of cases) {
        const error = await expectParseError(parseOdt(bytes, context(`${name}.odt`)), 'corrupt_document');
        expect(error.message, name).to.be.a('string').and.not.empty;
      }
    });

    it('refuses a truncated content.xml as corrupt_document, wherever it was cut (never a shorter document)', async () => {
      const whole = odfContent('text', `${p('First paragraph.')}${p('Second paragraph.')}`);
      for (let cut = 40; cut < whole.length; cut += 37) {
        const bytes = buildOdf('text', { body: '', parts: { 'content.xml': whole.slice(0, cut) } });
        const error = await expectParseError(parseOdt(bytes, context('cut.odt')), 'corrupt_document');
        expect(error.message, `cut at ${cut}`).to.match(/not well-formed XML/);
      }
    });

    it('answers mutated content.xml (cut, doubled and stray markup, huge repeats) with a document or a ParseError, never a crash', async () => {
      let seed = 12345;
      const random = (): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
      const stray = [
        '<',
        '>',
        '"',
        '&',
        '<text:p>',
        '</table:table-row>',
        'table:number-columns-repeated="99999999"',
        '<table:table-cell office:value-type="float" office:value="1e308">',
      ];
      for (const [name, parse] of [
        ['report.odt', parseOdt],
        ['workbook.ods', parseOds],
        ['slides.odp', parseOdp],
      ] as const) {
        const source = await openSafeZip(fixture(name), context(name));
        const parts: Record<string, Buffer> = {};
        for (const part of source.names) parts[part] = (await source.read(part)) ?? Buffer.alloc(0);
        for (let i = 0; i < 40; i += 1) {
          let xml = parts['content.xml']?.toString('utf8') ?? '';
          for (let k = 0; k < 1 + Math.floor(random() * 5); k += 1) {
            const at = Math.floor(random() * xml.length);
            const op = random();
            if (op < 0.3) xml = xml.slice(0, at) + xml.slice(at + Math.floor(random() * 50));
            else if (op < 0.6)
              xml = xml.slice(0, at) + xml.slice(at, at + Math.floor(random() * 200)) + xml.slice(at);
            else xml = xml.slice(0, at) + (stray[Math.floor(random() * stray.length)] ?? '') + xml.slice(at);
          }
          const bytes = buildZip(
            Object.entries({ ...parts, 'content.xml': Buffer.from(xml) }).map(([part, data]) => ({
              name: part,
              data,
              method: part === 'mimetype' ? 0 : 8,
            })),
          );
          try {
            await parse(bytes, context(name));
          } catch (error) {
            expect(error, `${name} #${i}`).to.have.property('name', 'ParseError');
          }
        }
      }
    });

    it('rejects an encrypted package, nesting past the depth limit, and an empty document with their own codes', async () => {
      const manifest =
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data manifest:checksum-type="SHA1"/></manifest:file-entry></manifest:manifest>';
      await expectParseError(
        parseOdt(
          buildOdf('text', { body: p('x'), parts: { 'META-INF/manifest.xml': manifest } }),
          context('secret.odt'),
        ),
        'encrypted_document',
      );
      const deep = `${'<text:section>'.repeat(5000)}${'</text:section>'.repeat(5000)}`;
      await expectParseError(parseOdt(buildOdf('text', { body: deep }), context('deep.odt')), 'too_complex');
      await expectParseError(
        parseOdt(buildOdf('text', { body: p('  ') }), context('blank.odt')),
        'empty_document',
      );
      await expectParseError(
        parseOdp(buildOdf('presentation', { body: '<draw:page draw:name="page1"/>' }), context('blank.odp')),
        'empty_document',
      );
    });

    it('stops at once when the caller has gone away, and keeps within maxTextChars', async () => {
      const controller = new AbortController();
      controller.abort();
      await expectParseError(
        parseOdt(fixture('report.odt'), context('r.odt', { signal: controller.signal })),
        'aborted',
      );
      await expectParseError(
        parseOdt(fixture('report.odt'), context('r.odt', { limits: { maxTextChars: 20 } })),
        'too_large',
      );
    });

    it('warns about a linked picture and an embedded chart instead of failing', async () => {
      const body = p(
        'Chart<draw:frame><draw:object xlink:href="./Object 1"/></draw:frame> and photo<draw:frame><draw:image xlink:href="https://example.org/x.png"/></draw:frame>',
      );
      const doc = await parseOdt(buildOdf('text', { body }), context('links.odt'));
      expect(texts(doc)).to.deep.equal(['p Chart and photo']);
      expect(doc.warnings).to.have.length(2);
    });
  });

  describe('format detection', () => {
    it('tells ODT, ODS and ODP apart from the stored mimetype, named or not', async () => {
      expect(await detectFormat(fixture('report.odt'), 'report.odt')).to.equal('.odt');
      expect(await detectFormat(fixture('workbook.ods'), 'upload')).to.equal('.ods');
      expect(await detectFormat(fixture('slides.odp'), 'slides.ODP')).to.equal('.odp');
      expect(await detectFormat(realOdt, 'report.odt')).to.equal('.odt');
    });

    it('refuses an ODS named .odt or .xlsx, and a DOCX named .odt, as a mismatch', async () => {
      await expectParseError(detectFormat(fixture('workbook.ods'), 'workbook.odt'), 'format_mismatch');
      await expectParseError(detectFormat(fixture('workbook.ods'), 'workbook.xlsx'), 'format_mismatch');
      await expectParseError(detectFormat(fixture('report.docx'), 'report.odt'), 'format_mismatch');
    });

    it('leaves a package whose mimetype is compressed to its name', async () => {
      const bytes = buildZip([
        { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text' },
        { name: 'content.xml', data: odfContent('text', p('Hello')) },
      ]);
      expect(await detectFormat(bytes, 'hello.odt')).to.equal('.odt');
      await expectParseError(detectFormat(bytes, 'hello.docx'), 'format_mismatch');
      await expectParseError(detectFormat(bytes, 'hello'), 'unsupported_format');
      expect(texts(await parseOdt(bytes, context('hello.odt')))).to.deep.equal(['p Hello']);
    });
  });
});
