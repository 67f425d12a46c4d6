import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { ParsedDocument } from '../../../src/parsing/model.js';
import { parseOdt } from '../../../src/parsing/office/parseOdf.js';
import { parseDocx } from '../../../src/parsing/office/parseDocx.js';
import { parseXlsx } from '../../../src/parsing/office/parseXlsx.js';
import { context } from './helpers.js';
import { buildOdf } from './odfWriter.js';
import { docxStylesParts, minimalDocx } from './zipWriter.js';

/** Documents of other packages than the real corpus's (test/corpus/heldout, issue 25 item 8). */
const heldOut = (name: string): Uint8Array =>
  readFileSync(new URL(`../../corpus/heldout/${name}`, import.meta.url));

const headings = (doc: ParsedDocument): Array<[number, string]> =>
  doc.blocks.flatMap((block) =>
    block.type === 'heading' ? [[block.level, block.text] as [number, string]] : [],
  );
const paragraphs = (doc: ParsedDocument): string[] =>
  doc.blocks.flatMap((block) => (block.type === 'paragraph' ? [block.text] : []));
const tableShapes = (doc: ParsedDocument): string[] =>
  doc.blocks.flatMap((block) =>
    block.type === 'table' ? [`${block.table.cells.length}×${block.table.cells[0]?.length ?? 0}`] : [],
  );

const wp = (text: string, style?: string): string =>
  `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t>${text}</w:t></w:r></w:p>`;
const WORD_STYLES = docxStylesParts(
  '<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>' +
    '<w:style w:type="paragraph" w:styleId="Subtitle"><w:name w:val="Subtitle"/><w:basedOn w:val="Title"/></w:style>' +
    '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>' +
    '<w:style w:type="paragraph" w:styleId="Heading3"><w:name w:val="heading 3"/></w:style>',
);

const ODT_STYLES =
  '<style:style style:name="Title" style:family="paragraph"/>' +
  '<style:style style:name="Subtitle" style:family="paragraph" style:parent-style-name="Title"/>';
const h = (level: number, inner: string): string => `<text:h text:outline-level="${level}">${inner}</text:h>`;
const tp = (text: string, style = 'Standard'): string =>
  `<text:p text:style-name="${style}">${text}</text:p>`;

describe('office classes on documents the fixes were not made on', () => {
  describe('DOCX Title and Subtitle styles', () => {
    it('makes consecutive Title paragraphs one title, and a Subtitle based on Title a heading 2 of its own', async () => {
      const body =
        wp('Application Programmer’s Interface', 'Title') +
        wp('for', 'Title') +
        wp('ODFPY 0.9.1', 'Title') +
        wp('Reference edition', 'Subtitle') +
        wp('Body text.') +
        wp('Introduction', 'Heading1');
      const doc = await parseDocx(minimalDocx(body, WORD_STYLES), context('title.docx'));
      expect(headings(doc)).to.deep.equal([
        [1, 'Application Programmer’s Interface for ODFPY 0.9.1'],
        [2, 'Reference edition'],
        [1, 'Introduction'],
      ]);
      expect(doc.metadata.title).to.equal('Application Programmer’s Interface for ODFPY 0.9.1');
    });

    it('keeps Title paragraphs apart when anything comes between them', async () => {
      const body = wp('First title', 'Title') + wp('Between.') + wp('Second title', 'Title');
      const doc = await parseDocx(minimalDocx(body, WORD_STYLES), context('titles.docx'));
      expect(headings(doc)).to.deep.equal([
        [1, 'First title'],
        [1, 'Second title'],
      ]);
    });

    it('reads pandoc’s reference.docx: Title 1, Subtitle (based on Title) 2, Heading 1–9 at their levels', async () => {
      const doc = await parseDocx(heldOut('docx-pandoc-reference.docx'), context('reference.docx'));
      expect(headings(doc)).to.deep.equal([
        [1, 'Title'],
        [2, 'Subtitle'],
        ...Array.from({ length: 9 }, (_, i): [number, string] => [i + 1, `Heading ${i + 1}`]),
      ]);
      expect(paragraphs(doc)).to.include.members(['Author', 'Date', 'First Paragraph.']);
    });
  });

  describe('DOCX text boxes', () => {
    it('reads a LibreOffice text box (wps:txbx Choice, v:textbox Fallback) once, in its anchor’s place', async () => {
      const doc = await parseDocx(heldOut('docx-pydocx-textbox.docx'), context('textbox.docx'));
      expect(paragraphs(doc)).to.deep.equal(['AAA', 'BBB', 'CCCDDD']);
    });
  });

  describe('headings whose text carries a section number', () => {
    it('takes a dotted number’s depth over the style’s level (DOCX)', async () => {
      const body = wp('2 Scope', 'Heading1') + wp('2.1 Terms', 'Heading3') + wp('Notes', 'Heading3');
      const doc = await parseDocx(minimalDocx(body, WORD_STYLES), context('numbered.docx'));
      expect(headings(doc)).to.deep.equal([
        [1, '2 Scope'],
        [2, '2.1 Terms'],
        [3, 'Notes'],
      ]);
    });

    it('makes a lone integer a chapter only when the dotted numbers below continue it (ODT)', async () => {
      const body =
        h(1, 'About') +
        h(4, '1. About this manual') +
        h(5, '1.1 For the impatient') +
        h(6, '1.4.1 Applying changes') +
        h(2, '3 Ways to win') +
        h(3, '4.1 Other matters');
      const doc = await parseOdt(buildOdf('text', { body }), context('numbered.odt'));
      expect(headings(doc)).to.deep.equal([
        [1, 'About'],
        [1, '1. About this manual'],
        [2, '1.1 For the impatient'],
        [3, '1.4.1 Applying changes'],
        [2, '3 Ways to win'],
        [2, '4.1 Other matters'],
      ]);
    });
  });

  describe('ODT headings', () => {
    it('makes consecutive Title paragraphs one heading 1, a Subtitle a heading 2', async () => {
      const body =
        tp('Application Programmer’s Interface', 'Title') + tp('for', 'Title') + tp('ODFPY', 'Title');
      const doc = await parseOdt(
        buildOdf('text', {
          body: body + tp('Second line', 'Subtitle') + h(1, 'Introduction'),
          styles: ODT_STYLES,
        }),
        context('title.odt'),
      );
      expect(headings(doc)).to.deep.equal([
        [1, 'Application Programmer’s Interface for ODFPY'],
        [2, 'Second line'],
        [1, 'Introduction'],
      ]);
    });

    it('reads a contents list typed as headings of cross-references as paragraphs, not sections', async () => {
      const body =
        h(1, '<text:bookmark-ref text:reference-format="text" text:ref-name="2">About</text:bookmark-ref>') +
        h(1, ' <text:a xlink:type="simple" xlink:href="#install">Installation</text:a> ') +
        h(1, '<text:bookmark-start text:name="2"/>About') +
        h(
          1,
          'See <text:bookmark-ref text:reference-format="text" text:ref-name="2">About</text:bookmark-ref>',
        );
      const doc = await parseOdt(buildOdf('text', { body }), context('contents.odt'));
      expect(paragraphs(doc)).to.deep.equal(['About', 'Installation']);
      expect(headings(doc)).to.deep.equal([
        [1, 'About'],
        [1, 'See About'],
      ]);
    });

    it('reads the Debian Live manual’s ODT: its typed contents not as headings, numbered headings by their numbers', async () => {
      const doc = await parseOdt(heldOut('odt-live-manual-about.odt'), context('live-manual.en.odt'));
      const found = headings(doc);
      expect(found).to.have.length(19);
      expect(found.slice(0, 6)).to.deep.equal([
        [1, 'Live Systems Manual 「1」'],
        [1, 'About 「2」'],
        [1, 'About this manual 「3」'],
        [1, '1. About this manual 「4」'],
        [2, '1.1 For the impatient 「8」'],
        [2, '1.2 Terms 「12」'],
      ]);
      expect(found).to.deep.include([3, '1.4.1 Applying changes 「46」']);
      expect(paragraphs(doc).slice(0, 3)).to.deep.equal([
        'Live Systems Manual',
        'About',
        'About this manual',
      ]);
    });

    it('reads odfpy’s API manual: a three-line title, outline levels 1–3, no table-of-contents text', async () => {
      const doc = await parseOdt(heldOut('odt-odfpy-api.odt'), context('api-for-odfpy.odt'));
      const found = headings(doc);
      expect(found.slice(0, 4)).to.deep.equal([
        [1, "Application Programmer's Interface for ODFPY 0.9.1"],
        [1, 'Introduction'],
        [2, 'About OpenDocument'],
        [1, 'Creating a document'],
      ]);
      expect(found.at(-1)).to.deep.equal([3, 'anim.Transitionfilter']);
      expect(paragraphs(doc).join('\n')).not.to.include('xforms module');
    });
  });

  describe('XLSX used range', () => {
    it('ends the table at the last row with a value, however many formatted empty rows follow', async () => {
      // dimension A1:L21; values in rows 1–3; rows 4–21 carry only a custom height.
      const doc = await parseXlsx(
        heldOut('xlsx-openxlsx-read-failure.xlsx'),
        context('read_failure_test.xlsx'),
      );
      expect(tableShapes(doc)).to.deep.equal(['3×12']);
    });

    it('ends a sheet at its data when styled empty cells lie below and beside it', async () => {
      const doc = await parseXlsx(heldOut('xlsx-xlsx2csv-sheets.xlsx'), context('sheets.xlsx'));
      expect(tableShapes(doc)).to.deep.equal(['6×7', '20×5']);
      const second = doc.blocks.filter((block) => block.type === 'table')[1];
      expect(second?.type === 'table' && second.table.cells.at(-1)).to.deep.equal([
        '10.х',
        'Шаг',
        '',
        '',
        '',
      ]);
    });
  });
});
