import { expect } from 'chai';
import mammoth from 'mammoth';
import type { Block, ParsedDocument } from '../../../src/parsing/model.js';
import { images, tables } from '../../../src/parsing/model.js';
import { parseDocx } from '../../../src/parsing/office/parseDocx.js';
import { context, fixture } from './helpers.js';
import { docxStylesParts, minimalDocx, rewriteZip } from './zipWriter.js';

function headings(doc: ParsedDocument): [string, number, number][] {
  return doc.blocks.flatMap((b) =>
    b.type === 'heading' ? [[b.text, b.level, b.page] as [string, number, number]] : [],
  );
}

function lists(doc: ParsedDocument): Extract<Block, { type: 'list' }>[] {
  return doc.blocks.filter((b): b is Extract<Block, { type: 'list' }> => b.type === 'list');
}

function paragraphs(doc: ParsedDocument): string[] {
  return doc.blocks.flatMap((b) => (b.type === 'paragraph' ? [b.text] : []));
}

const p = (text: string, pPr = ''): string =>
  `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ''}<w:r><w:t>${text}</w:t></w:r></w:p>`;

describe('parseDocx', () => {
  describe('a report made by LibreOffice (report.docx)', () => {
    let doc: ParsedDocument;
    before(async () => {
      doc = await parseDocx(fixture('report.docx'), context('uploads/2024/report.docx'));
    });

    it('reads the title and headings of three levels, with the page each starts on', () => {
      expect(headings(doc)).to.deep.equal([
        ['Quarterly Field Report', 1, 1],
        ['Introduction', 1, 1],
        ['Scope', 2, 1],
        ['Methods', 3, 1],
        ['Results', 1, 2],
        ['Discussion', 2, 2],
      ]);
    });

    it('reads a bulleted and a numbered list from the numbering definitions', () => {
      expect(lists(doc).map((l) => [l.ordered, l.items, l.page])).to.deep.equal([
        [false, ['Water quality sampling', 'Soil erosion survey', 'Community interviews'], 1],
        [true, ['Collect samples at dawn', 'Label each vial', 'Ship to the laboratory within 24 hours'], 1],
      ]);
    });

    it('reads the table with its vertical and horizontal merges expanded into a rectangle', () => {
      const [table, ...others] = tables(doc);
      expect(others).to.have.length(0);
      expect(table?.cells).to.deep.equal([
        ['Region', 'Site', 'Samples'],
        ['North', 'N-1', '12'],
        ['North', 'N-2', '7'],
        ['South', 'S-1', '8'],
        ['Total', 'Total', '27'],
      ]);
      expect(table?.hasHeader).to.equal(true);
      expect(table?.pageNumber).to.equal(2);
      expect(table?.index).to.equal(0);
    });

    it('reads the embedded PNG with its alt text, size and bytes, left undescribed', () => {
      const all = images(doc);
      expect(all).to.have.length(1);
      const image = all[0];
      expect(image).to.include({
        index: 0,
        pageNumber: 2,
        format: 'png',
        width: 240,
        height: 160,
        altText: 'Bar chart of samples per site',
        description: '',
        ocrText: null,
      });
      expect(
        Buffer.from(image?.data ?? [])
          .subarray(1, 4)
          .toString('latin1'),
      ).to.equal('PNG');
    });

    it('keeps body order: text, lists, table, picture, caption', () => {
      expect(doc.blocks.map((b) => b.type)).to.deep.equal([
        'heading',
        'paragraph',
        'heading',
        'paragraph',
        'heading',
        'paragraph',
        'list',
        'heading',
        'list',
        'heading',
        'paragraph',
        'table',
        'image',
        'paragraph',
        'heading',
        'paragraph',
      ]);
      expect(paragraphs(doc)).to.include(
        'North produced the most samples; the South site is still pending a second visit.',
      );
    });

    it('counts two pages from the explicit page break, and reads the core properties', () => {
      expect(doc.metadata.numPages).to.equal(2);
      expect(doc.pages.map((page) => [page.number, page.hasTextLayer, page.ocr])).to.deep.equal([
        [1, true, 'not_needed'],
        [2, true, 'not_needed'],
      ]);
      expect(doc.metadata).to.include({
        title: 'Quarterly Field Report',
        author: 'Amina Haddad',
        language: null,
      });
      expect(doc.metadata.extra).to.include({
        subject: 'Water and soil survey',
        created: '2024-03-01T09:30:00Z',
        modified: '2024-03-05T16:45:00Z',
        pagesCountedFromBreaks: true,
      });
      expect(doc.format).to.equal('.docx');
      expect(doc.sourceFile).to.equal('report.docx');
      expect(doc.warnings).to.deep.equal([]);
    });

    it('finds every paragraph mammoth finds (cross-check with another reader)', async () => {
      const { value } = await mammoth.extractRawText({ buffer: Buffer.from(fixture('report.docx')) });
      const ours = new Set<string>(
        doc.blocks.flatMap((b) => {
          if (b.type === 'heading' || b.type === 'paragraph') return [b.text];
          if (b.type === 'list') return b.items;
          if (b.type === 'table') return b.table.cells.flat();
          return [];
        }),
      );
      const theirs = value
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
      expect(theirs.length).to.be.greaterThan(20);
      expect(theirs.filter((line) => !ours.has(line))).to.deep.equal([]);
    });

    it('takes numPages from docProps/app.xml when Word recorded it', async () => {
      const app =
        '<?xml version="1.0"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Pages>3</Pages><Application>Microsoft Office Word</Application></Properties>';
      const bytes = await rewriteZip(fixture('report.docx'), { 'docProps/app.xml': app });
      const withPages = await parseDocx(bytes, context('report.docx'));
      expect(withPages.metadata.numPages).to.equal(3);
      expect(withPages.pages).to.have.length(3);
      expect(withPages.metadata.extra).to.include({ application: 'Microsoft Office Word' });
      expect(withPages.metadata.extra).to.not.have.property('pagesCountedFromBreaks');
    });
  });

  it('reads an Arabic report: right-to-left headings, list and table text unchanged', async () => {
    const doc = await parseDocx(fixture('arabic.docx'), context('arabic.docx'));
    expect(headings(doc)).to.deep.equal([
      ['تقرير المسح الميداني', 1, 1],
      ['المقدمة', 1, 1],
      ['النتائج', 2, 1],
    ]);
    expect(paragraphs(doc)[0]).to.equal('يلخص هذا التقرير أعمال المسح الميداني في الربع الأول من العام.');
    expect(lists(doc)[0]?.items).to.deep.equal(['أخذ عينات المياه', 'مسح تآكل التربة']);
    expect(tables(doc)[0]?.cells).to.deep.equal([
      ['الموقع', 'العينات'],
      ['الشمال', '١٢'],
    ]);
    expect(doc.metadata).to.include({ title: 'تقرير المسح الميداني', author: 'سارة منصور', numPages: 1 });
  });

  it('reads a 50-page document: one chapter heading per page, its table on the same page', async () => {
    const doc = await parseDocx(fixture('long.docx'), context('long.docx'));
    expect(doc.metadata.numPages).to.equal(50);
    expect(doc.pages).to.have.length(50);
    const chapters = headings(doc).filter(([, level]) => level === 1);
    expect(chapters).to.deep.equal(Array.from({ length: 50 }, (_, i) => [`Chapter ${i + 1}`, 1, i + 1]));
    expect(headings(doc).filter(([, level]) => level === 2)).to.have.length(100);
    expect(tables(doc).map((t) => [t.pageNumber, t.cells.length, t.cells[0]])).to.deep.equal(
      Array.from({ length: 50 }, (_, i) => [i + 1, 4, ['Site', 'Samples', 'Status']]),
    );
    expect(tables(doc)[49]?.cells[1]?.[0]).to.equal('S-50-1');
  });

  describe('Word constructs LibreOffice does not write', () => {
    it("counts Word's rendered page breaks, but not the one it writes right after an explicit break", async () => {
      const body = [
        p('one'),
        '<w:p><w:r><w:t>still one</w:t></w:r><w:r><w:br w:type="page"/></w:r></w:p>',
        '<w:p><w:r><w:lastRenderedPageBreak/><w:t>two</w:t></w:r></w:p>',
        '<w:p><w:r><w:t>two, then </w:t></w:r><w:r><w:lastRenderedPageBreak/><w:t>three</w:t></w:r></w:p>',
        p('four', '<w:pageBreakBefore/>'),
        p('end of section four', '<w:sectPr><w:type w:val="nextPage"/></w:sectPr>'),
        p('five'),
        p('still five', '<w:sectPr><w:type w:val="continuous"/></w:sectPr>'),
        p('also five'),
      ].join('');
      const doc = await parseDocx(minimalDocx(body), context('breaks.docx'));
      expect(doc.blocks.map((b) => (b.type === 'paragraph' ? [b.text, b.page] : null))).to.deep.equal([
        ['one', 1],
        ['still one', 1],
        ['two', 2],
        ['two, then', 2],
        ['three', 3],
        ['four', 4],
        ['end of section four', 4],
        ['five', 5],
        ['still five', 5],
        ['also five', 5],
      ]);
      expect(doc.metadata.numPages).to.equal(5);
    });

    it('resolves headings through the style chain, outline levels and localized style ids', async () => {
      const styles = docxStylesParts(
        [
          '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>',
          '<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/></w:style>',
          '<w:style w:type="paragraph" w:styleId="Fancy"><w:name w:val="Fancy Section"/><w:basedOn w:val="Heading2"/></w:style>',
          '<w:style w:type="paragraph" w:styleId="Outlined"><w:name w:val="Chapter Head"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>',
          '<w:style w:type="paragraph" w:styleId="Plain"><w:name w:val="Plain"/><w:basedOn w:val="Heading2"/><w:pPr><w:outlineLvl w:val="9"/></w:pPr></w:style>',
        ].join(''),
      );
      const body = [
        p('German heading', '<w:pStyle w:val="berschrift1"/>'),
        p('Inherited from heading 2', '<w:pStyle w:val="Fancy"/>'),
        p('Outline level 3', '<w:pStyle w:val="Outlined"/>'),
        p('Direct outline level', '<w:outlineLvl w:val="3"/>'),
        p('Body text despite its parent', '<w:pStyle w:val="Plain"/>'),
        p('Default style'),
      ].join('');
      const doc = await parseDocx(minimalDocx(body, styles), context('styles.docx'));
      expect(headings(doc)).to.deep.equal([
        ['German heading', 1, 1],
        ['Inherited from heading 2', 2, 1],
        ['Outline level 3', 3, 1],
        ['Direct outline level', 4, 1],
      ]);
      expect(paragraphs(doc)).to.deep.equal(['Body text despite its parent', 'Default style']);
      expect(doc.metadata.title).to.equal('German heading', 'no dc:title: the first heading is the title');
    });

    it('reads run text the way Word shows it: fields, insertions, tabs, breaks; not deletions or field codes', async () => {
      const body = [
        '<w:p><w:r><w:t xml:space="preserve">Name:</w:t></w:r><w:r><w:tab/><w:t>Ada</w:t></w:r><w:r><w:br/><w:t>Line two</w:t></w:r></w:p>',
        '<w:p><w:hyperlink r:id="rId9"><w:r><w:t>a link</w:t></w:r></w:hyperlink><w:ins><w:r><w:t xml:space="preserve"> inserted</w:t></w:r></w:ins><w:del><w:r><w:delText> deleted</w:delText></w:r></w:del></w:p>',
        '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE \\* MERGEFORMAT</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>7</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>',
        '<w:sdt><w:sdtContent><w:p><w:r><w:t>In a content control</w:t></w:r></w:p></w:sdtContent></w:sdt>',
        '<w:p><w:r><w:t>Tom &amp; Jerry &lt;3 &#x41;&#66; &amp;#65;</w:t></w:r></w:p>',
      ].join('');
      const doc = await parseDocx(minimalDocx(body), context('runs.docx'));
      expect(paragraphs(doc)).to.deep.equal([
        'Name: Ada\nLine two',
        'a link inserted',
        '7',
        'In a content control',
        'Tom & Jerry <3 AB &#65;',
      ]);
    });

    it('reads table header rows, skipped grid columns, open vertical merges and nested tables', async () => {
      const cell = (text: string, tcPr = ''): string =>
        `<w:tc>${tcPr ? `<w:tcPr>${tcPr}</w:tcPr>` : ''}${p(text)}</w:tc>`;
      const nested = `<w:tc><w:tbl><w:tr>${cell('x')}${cell('y')}</w:tr><w:tr>${cell('1')}${cell('2')}</w:tr></w:tbl><w:p/></w:tc>`;
      const body = `<w:tbl>
        <w:tr><w:trPr><w:tblHeader/></w:trPr>${cell('Key')}${cell('Value')}${cell('Note')}</w:tr>
        <w:tr>${cell('a', '<w:vMerge w:val="restart"/>')}${cell('1')}${cell('first')}</w:tr>
        <w:tr>${cell('', '<w:vMerge/>')}${cell('2')}${nested}</w:tr>
        <w:tr><w:trPr><w:gridBefore w:val="1"/></w:trPr>${cell('late', '<w:gridSpan w:val="2"/>')}</w:tr>
      </w:tbl>`;
      const doc = await parseDocx(minimalDocx(body), context('table.docx'));
      expect(tables(doc)[0]?.cells).to.deep.equal([
        ['Key', 'Value', 'Note'],
        ['a', '1', 'first'],
        ['a', '2', 'x | y\n1 | 2'],
        ['', 'late', 'late'],
      ]);
      expect(tables(doc)[0]?.hasHeader).to.equal(true);
    });

    it('takes the drawing Word renders (mc:Choice), not its VML fallback as well', async () => {
      const body = `<w:p><w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">
        <mc:Choice Requires="wps"><w:drawing><wp:anchor xmlns:wp="x"><wps:txbx xmlns:wps="y"><w:txbxContent>${p('In the text box')}</w:txbxContent></wps:txbx></wp:anchor></w:drawing></mc:Choice>
        <mc:Fallback><w:pict><v:textbox xmlns:v="z"><w:txbxContent>${p('In the text box')}</w:txbxContent></v:textbox></w:pict></mc:Fallback>
      </mc:AlternateContent></w:r><w:r><w:t>Around the box</w:t></w:r></w:p>`;
      const doc = await parseDocx(minimalDocx(body), context('box.docx'));
      expect(paragraphs(doc)).to.deep.equal(['Around the box', 'In the text box']);
    });
  });

  describe('document fidelity classes (issue 12)', () => {
    const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
    const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    const rels = (...entries: [string, string, string][]): string =>
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${entries
        .map(([id, type, target]) => `<Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"/>`)
        .join('')}</Relationships>`;
    const notesPart = (kind: 'footnote' | 'endnote', notes: Record<string, string>): string =>
      `<w:${kind}s xmlns:w="${W}"><w:${kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:${kind}><w:${kind} w:id="0" w:type="continuationSeparator"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:${kind}>${Object.entries(
        notes,
      )
        .map(
          ([id, text]) =>
            `<w:${kind} w:id="${id}"><w:p><w:r><w:${kind}Ref/></w:r><w:r><w:t xml:space="preserve"> ${text}</w:t></w:r></w:p></w:${kind}>`,
        )
        .join('')}</w:${kind}s>`;

    it('keeps footnotes after the citing paragraph and endnotes at the end, linked by their marks', async () => {
      const body = [
        `<w:p><w:r><w:t>Rivers</w:t></w:r><w:r><w:footnoteReference w:id="2"/></w:r><w:r><w:t xml:space="preserve"> were sampled</w:t></w:r><w:r><w:footnoteReference w:id="3"/></w:r><w:r><w:t>.</w:t></w:r></w:p>`,
        `<w:p><w:r><w:t>Nitrate rose</w:t></w:r><w:r><w:endnoteReference w:id="1"/></w:r></w:p>`,
        p('Last paragraph.'),
      ].join('');
      const doc = await parseDocx(
        minimalDocx(body, {
          'word/_rels/document.xml.rels': rels(
            ['r1', 'footnotes', 'footnotes.xml'],
            ['r2', 'endnotes', 'endnotes.xml'],
          ),
          'word/footnotes.xml': notesPart('footnote', { '2': 'Measured in May.', '3': 'By the river team.' }),
          'word/endnotes.xml': notesPart('endnote', { '1': 'See the annex.' }),
        }),
        context('notes.docx'),
      );
      expect(paragraphs(doc)).to.deep.equal([
        'Rivers[1] were sampled[2].',
        '[1] Measured in May.',
        '[2] By the river team.',
        'Nitrate rose[i]',
        'Last paragraph.',
        '[i] See the annex.',
      ]);
    });

    it('reads Title and Subtitle styles as headings 1 and 2 (also when based on them)', async () => {
      const styles = docxStylesParts(
        '<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>' +
          '<w:style w:type="paragraph" w:styleId="Subtitle"><w:name w:val="Subtitle"/></w:style>' +
          '<w:style w:type="paragraph" w:styleId="MySub"><w:name w:val="My subtitle"/><w:basedOn w:val="Subtitle"/></w:style>',
      );
      const body = `${p('Annual Report', '<w:pStyle w:val="Title"/>')}${p('Rivers and lakes', '<w:pStyle w:val="Subtitle"/>')}${p('Second edition', '<w:pStyle w:val="MySub"/>')}${p('Body.')}`;
      const doc = await parseDocx(minimalDocx(body, styles), context('title.docx'));
      expect(headings(doc)).to.deep.equal([
        ['Annual Report', 1, 1],
        ['Rivers and lakes', 2, 1],
        ['Second edition', 2, 1],
      ]);
    });

    it('does not repeat headers and footers into the body', async () => {
      const header = `<w:hdr xmlns:w="${W}">${p('CONFIDENTIAL — Field report')}</w:hdr>`;
      const footer = `<w:ftr xmlns:w="${W}">${p('Page 1 of 2')}</w:ftr>`;
      const sectPr = `<w:sectPr xmlns:r="${REL}"><w:headerReference w:type="default" r:id="h1"/><w:footerReference w:type="default" r:id="f1"/></w:sectPr>`;
      const body = `${p('First page.')}<w:p><w:r><w:br w:type="page"/></w:r></w:p>${p('Second page.')}${sectPr}`;
      const doc = await parseDocx(
        minimalDocx(body, {
          'word/_rels/document.xml.rels': rels(
            ['h1', 'header', 'header1.xml'],
            ['f1', 'footer', 'footer1.xml'],
          ),
          'word/header1.xml': header,
          'word/footer1.xml': footer,
        }),
        context('header.docx'),
      );
      expect(paragraphs(doc)).to.deep.equal(['First page.', 'Second page.']);
      expect(doc.metadata.numPages).to.equal(2);
    });

    it('keeps the text of shapes as well as text boxes, VML ones included', async () => {
      const body = `<w:p><w:r><w:t>Diagram:</w:t></w:r><w:r><w:drawing><wp:anchor xmlns:wp="x"><a:graphic xmlns:a="a"><a:graphicData><wps:wsp xmlns:wps="y"><wps:txbx><w:txbxContent>${p('Arrow label')}</w:txbxContent></wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></w:r></w:p>
        <w:p><w:r><w:pict><v:shape xmlns:v="z"><v:textbox><w:txbxContent>${p('Callout in VML')}</w:txbxContent></v:textbox></v:shape></w:pict></w:r></w:p>`;
      const doc = await parseDocx(minimalDocx(body), context('shapes.docx'));
      expect(paragraphs(doc)).to.deep.equal(['Diagram:', 'Arrow label', 'Callout in VML']);
    });
  });
});
