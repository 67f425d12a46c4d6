import { expect } from 'chai';
import { constants, deflateRawSync } from 'node:zlib';
import { tables } from '../../../src/parsing/model.js';
import { parseXlsx } from '../../../src/parsing/office/parseXlsx.js';
import { expectParseError } from '../expectParseError.js';
import { context } from './helpers.js';
import { buildZip, type ZipEntrySpec } from './zipWriter.js';

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A one-sheet workbook whose sheet part is `sheet` (any entry, honest or not). */
function oneSheetWorkbook(sheet: Omit<ZipEntrySpec, 'name'>): Buffer {
  return buildZip([
    {
      name: '_rels/.rels',
      data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data: `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    },
    { name: 'xl/worksheets/sheet1.xml', ...sheet },
  ]);
}

const sheetXml = (rows: string): string =>
  `<worksheet xmlns="${MAIN}"><sheetData>${rows}</sheetData></worksheet>`;

function rowsOf(count: number, from = 1): string {
  return Array.from({ length: count }, (_, i) => {
    const r = from + i;
    return `<row r="${r}"><c r="A${r}"><v>${r}</v></c><c r="B${r}" t="inlineStr"><is><t>row ${r}</t></is></c></row>`;
  }).join('');
}

describe('parseXlsx reads sheets as they inflate', () => {
  it('reads a sheet of 20,000 rows cut into inflater chunks anywhere (inside tags and values)', async () => {
    const doc = await parseXlsx(oneSheetWorkbook({ data: sheetXml(rowsOf(20_000)) }), context('rows.xlsx'));
    const cells = tables(doc)[0]?.cells;
    expect(cells).to.have.length(20_000);
    expect(cells?.[0]).to.deep.equal(['1', 'row 1']);
    expect(cells?.[12_345]).to.deep.equal(['12346', 'row 12346']);
    expect(cells?.[19_999]).to.deep.equal(['20000', 'row 20000']);
  });

  it('stops at the row cap before inflating the rest: damage further on in the part is never reached', async () => {
    // A valid start (flushed, so it inflates on its own), then bytes that are not deflate data.
    const start = deflateRawSync(Buffer.from(`<worksheet xmlns="${MAIN}"><sheetData>${rowsOf(5_000)}`), {
      finishFlush: constants.Z_FULL_FLUSH,
    });
    const damaged = Buffer.concat([start, Buffer.alloc(4096, 0xff)]);
    const bytes = oneSheetWorkbook({ deflated: { bytes: damaged, size: 10_000_000 } });
    // Reading the whole part first would fail on the damage (corrupt_document); the cap comes first.
    const error = await expectParseError(
      parseXlsx(bytes, context('capped.xlsx', { limits: { maxRows: 1_000 } })),
      'too_large',
    );
    expect(error.message).to.contain('more than 1000 rows').and.contain('PARSE_MAX_ROWS');
    await expectParseError(parseXlsx(bytes, context('damaged.xlsx')), 'corrupt_document');
  });

  it('refuses more columns than maxRowFields and a value longer than maxFieldChars', async () => {
    const wide = oneSheetWorkbook({
      data: sheetXml('<row r="1"><c r="A1"><v>1</v></c><c r="Z1"><v>2</v></c></row>'),
    });
    const columns = await expectParseError(
      parseXlsx(wide, context('wide.xlsx', { limits: { maxRowFields: 10 } })),
      'too_large',
    );
    expect(columns.message).to.contain('more than 10 columns').and.contain('PARSE_MAX_ROW_FIELDS');

    const long = oneSheetWorkbook({
      data: sheetXml(`<row r="1"><c r="A1" t="inlineStr"><is><t>${'x'.repeat(500)}</t></is></c></row>`),
    });
    const field = await expectParseError(
      parseXlsx(long, context('long.xlsx', { limits: { maxFieldChars: 100 } })),
      'too_large',
    );
    expect(field.message).to.contain('longer than 100 characters').and.contain('PARSE_MAX_FIELD_CHARS');
  });
});
