import { expect } from 'chai';
import ExcelJS from 'exceljs';
import { Readable } from 'node:stream';
import type { ParsedDocument, Table } from '../../../src/parsing/model.js';
import { tables } from '../../../src/parsing/model.js';
import { parseXlsx } from '../../../src/parsing/office/parseXlsx.js';
import { classifyFormatCode, renderNumber } from '../../../src/parsing/office/xlsxValues.js';
import { expectParseError } from '../expectParseError.js';
import { context, fixture } from './helpers.js';
import { buildZip } from './zipWriter.js';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

interface SheetSpec {
  name: string;
  /** Inner XML of `<sheetData>`. */
  rows: string;
  /** Anything after `</sheetData>` (merge cells…). */
  after?: string;
  state?: string;
}

/** A workbook written by hand, for cell types LibreOffice does not produce. */
function workbook(
  sheets: SheetSpec[],
  options: { strings?: string; styles?: string; workbookPr?: string } = {},
): Buffer {
  const rels = sheets
    .map(
      (_, i) =>
        `<Relationship Id="rId${i + 1}" Type="${REL}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
    )
    .concat(
      options.strings
        ? [`<Relationship Id="rS" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>`]
        : [],
      options.styles ? [`<Relationship Id="rY" Type="${REL}/styles" Target="styles.xml"/>`] : [],
    )
    .join('');
  return buildZip([
    {
      name: '_rels/.rels',
      data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data: `<workbook xmlns="${MAIN}" xmlns:r="${REL}">${options.workbookPr ?? ''}<sheets>${sheets
        .map(
          (s, i) =>
            `<sheet name="${s.name}" sheetId="${i + 1}"${s.state ? ` state="${s.state}"` : ''} r:id="rId${i + 1}"/>`,
        )
        .join('')}</sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`,
    },
    ...sheets.map((s, i) => ({
      name: `xl/worksheets/sheet${i + 1}.xml`,
      data: `<worksheet xmlns="${MAIN}"><sheetData>${s.rows}</sheetData>${s.after ?? ''}</worksheet>`,
    })),
    ...(options.strings
      ? [{ name: 'xl/sharedStrings.xml', data: `<sst xmlns="${MAIN}">${options.strings}</sst>` }]
      : []),
    ...(options.styles
      ? [{ name: 'xl/styles.xml', data: `<styleSheet xmlns="${MAIN}">${options.styles}</styleSheet>` }]
      : []),
  ]);
}

function sheetTable(doc: ParsedDocument, caption: string): Table | undefined {
  return tables(doc).find((t) => t.caption === caption);
}

describe('parseXlsx', () => {
  describe('a workbook made by LibreOffice (workbook.xlsx)', () => {
    let doc: ParsedDocument;
    before(async () => {
      doc = await parseXlsx(fixture('workbook.xlsx'), context('workbook.xlsx'));
    });

    it('makes each sheet a page with a heading of its name and one table captioned with it', () => {
      expect(
        doc.blocks.map((b) => [
          b.type,
          b.page,
          b.type === 'heading' ? b.text : b.type === 'table' ? b.table.caption : null,
        ]),
      ).to.deep.equal([
        ['heading', 1, 'Sales'],
        ['table', 1, 'Sales'],
        ['heading', 2, 'Summary'],
        ['table', 2, 'Summary'],
        ['heading', 3, 'Lookup'],
        ['table', 3, 'Lookup'],
      ]);
      expect(doc.metadata.numPages).to.equal(3);
      expect(tables(doc).map((t) => t.index)).to.deep.equal([0, 1, 2]);
    });

    it('reads dates as ISO strings, numbers, booleans, formulas by cached value, and a merged cell once', () => {
      expect(sheetTable(doc, 'Sales')?.cells).to.deep.equal([
        ['Date', 'Region', 'Units', 'Price', 'Revenue', 'Paid'],
        ['2024-01-15', 'North & East', '120', '2.5', '300', 'TRUE'],
        ['2024-02-29', 'South', '75', '3.2', '240', 'FALSE'],
        ['2024-03-31', 'West', '-4.75', '10', '-47.5', 'TRUE'],
        ['Q1 figures are provisional', '', '', '', '492.5', ''],
      ]);
      expect(sheetTable(doc, 'Sales')?.hasHeader).to.equal(true);
    });

    it('trims leading empty rows and columns, and renders a date-time and a percentage', () => {
      expect(sheetTable(doc, 'Summary')?.cells).to.deep.equal([
        ['Metric', 'Value'],
        ['Total units', '190.25'],
        ['Report generated', '2024-04-02T14:30:00'],
        ['Paid share', '66.67%'],
        ['Best region', 'North & East'],
      ]);
    });

    it('includes the hidden sheet and notes it', () => {
      expect(doc.pages[2]?.note).to.equal('sheet "Lookup" is hidden in the workbook');
      expect(doc.pages[0]?.note).to.equal(null);
      expect(doc.metadata.extra).to.include({ sheets: 'Sales, Summary, Lookup', hiddenSheets: 'Lookup' });
    });

    it('takes the title from the core properties, never from a sheet name', () => {
      expect(doc.metadata).to.include({ title: 'Regional Sales Q1', author: 'Omar Khalil', language: null });
      expect(doc.format).to.equal('.xlsx');
    });

    it('agrees with exceljs on dates and numbers (cross-check with another reader)', async () => {
      const book = new ExcelJS.Workbook();
      await book.xlsx.read(Readable.from([Buffer.from(fixture('workbook.xlsx'))]));
      const sheet = book.getWorksheet('Sales');
      const date = sheet?.getCell('A3').value;
      expect(date).to.be.instanceOf(Date);
      expect(date instanceof Date ? date.toISOString().slice(0, 10) : null).to.equal(
        sheetTable(doc, 'Sales')?.cells[2]?.[0],
      );
      expect(String(sheet?.getCell('C4').value)).to.equal(sheetTable(doc, 'Sales')?.cells[3]?.[2]);
    });
  });

  it('reads inline strings, errors, ISO date cells, rich text, escapes, and formulas without a cached value', async () => {
    const bytes = workbook(
      [
        {
          name: 'Cells',
          rows: [
            '<row r="1"><c r="A1" t="inlineStr"><is><t>inline &amp; plain</t></is></c><c r="B1" t="e"><v>#DIV/0!</v></c><c r="C1" t="d"><v>2023-05-06T00:00:00</v></c></row>',
            '<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>1</v></c><c r="C2"><f>SUM(A1:A9)</f></c></row>',
            '<row r="3"><c t="s"><v>2</v></c><c t="b"><v>0</v></c><c t="str"><f>A1</f><v>text result</v></c></row>',
          ].join(''),
        },
      ],
      {
        strings:
          '<si><r><t>Rich </t></r><r><rPr><b/></rPr><t>text</t></r><rPh><t>ignored</t></rPh></si><si><t>Line_x000D_break</t></si><si><t xml:space="preserve">  spaced  </t></si>',
      },
    );
    const doc = await parseXlsx(bytes, context('cells.xlsx'));
    expect(tables(doc)[0]?.cells).to.deep.equal([
      ['inline & plain', '#DIV/0!', '2023-05-06'],
      ['Rich text', 'Line\rbreak', '=SUM(A1:A9)'],
      ['  spaced  ', 'FALSE', 'text result'],
    ]);
  });

  it('honours the 1904 date system, time formats and the number format on each cell', async () => {
    const styles =
      '<numFmts><numFmt numFmtId="164" formatCode="[$-409]d\\ mmmm\\ yyyy;@"/><numFmt numFmtId="165" formatCode="[h]:mm:ss"/></numFmts>' +
      '<cellXfs><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="20"/><xf numFmtId="165"/><xf numFmtId="10"/></cellXfs>';
    const rows =
      '<row r="1"><c r="A1" s="1"><v>0</v></c><c r="B1" s="2"><v>0.75</v></c><c r="C1" s="3"><v>1.5</v></c><c r="D1" s="4"><v>0.125</v></c><c r="E1" s="0"><v>0.30000000000000004</v></c></row>';
    const doc = await parseXlsx(
      workbook([{ name: 'Dates', rows }], { styles, workbookPr: '<workbookPr date1904="1"/>' }),
      context('d.xlsx'),
    );
    expect(tables(doc)[0]?.cells).to.deep.equal([['1904-01-01', '18:00:00', '1.5', '12.5%', '0.3']]);
  });

  it('keeps a merged range value in its first cell only and reads prefixed elements', async () => {
    const rows =
      '<x:row r="2"><x:c r="B2" t="inlineStr"><x:is><x:t>Merged</x:t></x:is></x:c><x:c r="C2" t="inlineStr"><x:is><x:t>stale</x:t></x:is></x:c></x:row>' +
      '<x:row r="3"><x:c r="B3"><x:v>1</x:v></x:c><x:c r="C3"><x:v>2</x:v></x:c></x:row>';
    const bytes = buildZip([
      {
        name: 'xl/workbook.xml',
        data: `<x:workbook xmlns:x="${MAIN}" xmlns:r="${REL}"><x:sheets><x:sheet name="P" sheetId="1" r:id="rId1"/></x:sheets></x:workbook>`,
      },
      {
        name: 'xl/_rels/workbook.xml.rels',
        data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="/xl/worksheets/s.xml"/></Relationships>`,
      },
      {
        name: 'xl/worksheets/s.xml',
        data: `<x:worksheet xmlns:x="${MAIN}"><x:sheetData>${rows}</x:sheetData><x:mergeCells><x:mergeCell ref="B2:C2"/></x:mergeCells></x:worksheet>`,
      },
    ]);
    const doc = await parseXlsx(bytes, context('prefixed.xlsx'));
    expect(tables(doc)[0]?.cells).to.deep.equal([
      ['Merged', ''],
      ['1', '2'],
    ]);
    expect(doc.metadata.title).to.equal('prefixed', 'no core properties: the file name is the title');
  });

  it('classifies number format codes', () => {
    expect(
      [
        'yyyy-mm-dd',
        'mmm-yy',
        'h:mm AM/PM',
        'dd/mm/yyyy hh:mm',
        '0.00%',
        '#,##0.00 [$€-407]',
        '"days" 0',
        '[h]:mm',
        'General',
      ].map(classifyFormatCode),
    ).to.deep.equal(['date', 'date', 'time', 'datetime', 'percent', 'number', 'number', 'number', 'number']);
    expect(renderNumber('45306', 'date', false)).to.equal('2024-01-15');
    expect(renderNumber('1', 'date', false)).to.equal('1900-01-01');
    expect(renderNumber('61', 'date', false)).to.equal('1900-03-01');
    expect(renderNumber('45384.6041666667', 'datetime', false)).to.equal('2024-04-02T14:30:00');
  });

  it('parses 50,000 rows × 10 columns within 3 seconds', async function () {
    this.timeout(30_000);
    const row = (r: number): string =>
      `<row r="${r}">` +
      Array.from({ length: 10 }, (_, c) =>
        c % 2 === 0
          ? `<c r="${String.fromCharCode(65 + c)}${r}"><v>${r * 10 + c}</v></c>`
          : `<c r="${String.fromCharCode(65 + c)}${r}" t="s"><v>${c}</v></c>`,
      ).join('') +
      '</row>';
    const rows = Array.from({ length: 50_000 }, (_, i) => row(i + 1)).join('');
    const strings = Array.from({ length: 10 }, (_, i) => `<si><t>label ${i}</t></si>`).join('');
    const bytes = workbook([{ name: 'Big', rows }], { strings });
    const start = performance.now();
    const doc = await parseXlsx(bytes, context('big.xlsx'));
    const elapsed = performance.now() - start;
    const table = tables(doc)[0];
    expect(table?.cells).to.have.length(50_000);
    expect(table?.cells[49_999]).to.deep.equal([
      '500000',
      'label 1',
      '500002',
      'label 3',
      '500004',
      'label 5',
      '500006',
      'label 7',
      '500008',
      'label 9',
    ]);
    expect(elapsed).to.be.below(3000);
  });

  it('refuses a sheet with more cells than maxCells (too_large)', async () => {
    const rows = Array.from(
      { length: 30 },
      (_, i) => `<row r="${i + 1}"><c r="A${i + 1}"><v>${i}</v></c><c r="B${i + 1}"><v>${i}</v></c></row>`,
    ).join('');
    await expectParseError(
      parseXlsx(workbook([{ name: 'S', rows }]), context('cells.xlsx', { limits: { maxCells: 50 } })),
      'too_large',
    );
    await expectParseError(
      parseXlsx(
        workbook([
          { name: 'S', rows: '<row r="1"><c r="A1"><v>1</v></c><c r="XFD1048576"><v>2</v></c></row>' },
        ]),
        context('sparse.xlsx'),
      ),
      'too_large',
    );
  });

  it('stays linear on malformed markup: a million unclosed <si> and <t>, and unclosed <v> tags, take well under a second', async () => {
    const million = 1_000_000;
    const bytes = workbook(
      [
        {
          name: 'M',
          rows: `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1">${'<v>'.repeat(10_000)}</c></row>`,
        },
      ],
      { strings: `<si><t>kept</t></si>${'<si>'.repeat(million)}${'<t>'.repeat(million)}` },
    );
    const start = performance.now();
    // Repeated tags compress ~1000:1; lift the ratio limit, this test is about the scanner.
    const doc = await parseXlsx(bytes, context('malformed.xlsx', { limits: { maxCompressionRatio: 5000 } }));
    expect(performance.now() - start).to.be.below(1500);
    expect(tables(doc)[0]?.cells).to.deep.equal([['kept']]);
  });

  it('refuses a cell whose markup never ends (a million unclosed <v>) instead of holding it', async () => {
    const bytes = workbook([
      { name: 'M', rows: `<row r="1"><c r="A1">${'<v>'.repeat(1_000_000)}</c></row>` },
    ]);
    const error = await expectParseError(
      parseXlsx(bytes, context('malformed.xlsx', { limits: { maxCompressionRatio: 5000 } })),
      'too_large',
    );
    expect(error.message).to.contain('PARSE_MAX_FIELD_CHARS');
  });

  it('refuses a workbook whose sheets hold no value at all (empty_document)', async () => {
    const doc = workbook([
      { name: 'A', rows: '<row r="1"><c r="A1" s="0"/></row>' },
      { name: 'B', rows: '' },
    ]);
    await expectParseError(parseXlsx(doc, context('empty.xlsx')), 'empty_document');
  });

  it('keeps the real used range: trailing blank rows, formatted-but-empty cells and a stale dimension ignored (issue 12)', async () => {
    const styled = (ref: string): string => `<c r="${ref}" s="1"/>`;
    const rows = [
      '<row r="1"><c r="A1" t="inlineStr"><is><t>Site</t></is></c><c r="B1" t="inlineStr"><is><t>Samples</t></is></c>' +
        styled('Z1') +
        '</row>',
      `<row r="2"><c r="A2" t="inlineStr"><is><t>N-1</t></is></c><c r="B2"><v>12</v></c>${styled('C2')}${styled('XFD2')}</row>`,
      ...Array.from(
        { length: 500 },
        (_, i) =>
          `<row r="${i + 3}" s="1" customFormat="1">${styled(`A${i + 3}`)}${styled(`B${i + 3}`)}</row>`,
      ),
      `<row r="1048576" s="1" customFormat="1"><c r="B1048576" t="inlineStr"><is><t> </t></is></c></row>`,
    ].join('');
    const doc = await parseXlsx(
      workbook([{ name: 'Sites', rows, after: '<dimension ref="A1:XFD1048576"/>' }]),
      context('used.xlsx'),
    );
    expect(sheetTable(doc, 'Sites')?.cells).to.deep.equal([
      ['Site', 'Samples'],
      ['N-1', '12'],
    ]);
  });

  it('makes several sheets sections named after them, merged cells kept once in each (issue 12)', async () => {
    const doc = await parseXlsx(
      workbook([
        {
          name: 'North',
          rows: '<row r="1"><c r="A1" t="inlineStr"><is><t>Region total</t></is></c><c r="B1" t="inlineStr"><is><t>merged away</t></is></c><c r="C1"><v>19</v></c></row><row r="2"><c r="A2"><v>1</v></c><c r="B2"><v>2</v></c><c r="C2"><v>3</v></c></row>',
          after: '<mergeCells count="1"><mergeCell ref="A1:B1"/></mergeCells>',
        },
        { name: 'South', rows: '<row r="3"><c r="C3"><v>8</v></c></row>' },
      ]),
      context('regions.xlsx'),
    );
    expect(
      doc.blocks.map((b) =>
        b.type === 'heading' ? `# ${b.text} p${b.page}` : b.type === 'table' ? b.table.cells : b.type,
      ),
    ).to.deep.equal([
      '# North p1',
      [
        ['Region total', '', '19'],
        ['1', '2', '3'],
      ],
      '# South p2',
      [['8']],
    ]);
  });
});
