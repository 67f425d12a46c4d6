import { expect } from 'chai';
import { parseCsv } from '../../../src/parsing/text/index.js';
import { readCsvRecords, UNCAPPED } from '../../../src/parsing/text/csvReader.js';
import { detectDelimiter } from '../../../src/parsing/text/parseCsv.js';
import { blocksOf, bytesOf, expectCode, fixture, textContext } from './support.js';

describe('parseCsv', () => {
  it("reads LibreOffice's ';' export: quoted fields with ';', doubled quotes and a line break, an empty cell", async () => {
    const document = await parseCsv(fixture('inventory.csv'), textContext('inventory.csv'));
    expect(document.format).to.equal('.csv');
    expect(document.metadata).to.deep.include({ title: 'inventory', numPages: 1 });
    expect(document.metadata.extra).to.deep.include({ delimiter: ';', rows: 5, columns: 5 });
    expect(document.blocks).to.have.length(1);
    const table = blocksOf(document, 'table')[0]?.table;
    expect(table).to.deep.include({ hasHeader: true, index: 0, pageNumber: 1 });
    expect(table?.cells).to.deep.equal([
      ['Item', 'Location', 'Quantity', 'Unit price', 'Notes'],
      ['Sample bottles', 'Store A', '240', '0.35', '500 ml; screw cap'],
      ['pH meter', 'Lab 2', '3', '189.9', 'Calibrate "weekly"'],
      ['Waders', 'Store B', '12', '64.5', ''],
      ['Turbidity tubes', 'Store A', '8', '22', 'Fragile\nhandle with care'],
    ]);
  });

  it('detects comma, tab and pipe delimiters from a consistent column count', () => {
    expect(detectDelimiter('a,b,c\n1,2,3\n4,5,6\n')).to.equal(',');
    expect(detectDelimiter('name\tnote\nx\t"a, b, c"\ny\tplain\n')).to.equal('\t');
    expect(detectDelimiter('id|label|value\n1|one, first|1,5\n2|two|2,5\n')).to.equal('|');
    expect(detectDelimiter('Name;City\n"Smith, J";Oxford\nLee;Leeds\n')).to.equal(';');
  });

  it('strips a UTF-8 BOM, pads ragged rows, and sees no header when the first row holds numbers', async () => {
    const text = '\ufeff2023,North Bridge,9.1\n2024,Mill Weir\n2025,South Ford,7.9,extra\n';
    const table = blocksOf(await parseCsv(bytesOf(text), textContext('years.csv')), 'table')[0]?.table;
    expect(table?.hasHeader).to.equal(false);
    expect(table?.cells).to.deep.equal([
      ['2023', 'North Bridge', '9.1', ''],
      ['2024', 'Mill Weir', '', ''],
      ['2025', 'South Ford', '7.9', 'extra'],
    ]);
  });

  it('sees no header when the first row repeats a value', async () => {
    const table = blocksOf(await parseCsv(bytesOf('a,a\nb,c\n'), textContext('dup.csv')), 'table')[0]?.table;
    expect(table?.hasHeader).to.equal(false);
  });

  it('reads windows-1252 bytes', async () => {
    const bytes = new Uint8Array([
      ...Buffer.from('Caf'),
      0xe9,
      ...Buffer.from(',Prix\nCr'),
      0xe8,
      ...Buffer.from('me,2\n'),
    ]);
    const table = blocksOf(await parseCsv(bytes, textContext('menu.csv')), 'table')[0]?.table;
    expect(table?.cells).to.deep.equal([
      ['Café', 'Prix'],
      ['Crème', '2'],
    ]);
  });

  it('reads CRLF, CR and LF line ends, skips empty lines, and keeps a trailing empty field', () => {
    const records = [...readCsvRecords('a,b\r\n\r\nc,d\re,\n\nf', ',', UNCAPPED, 't.csv')];
    expect(records).to.deep.equal([['a', 'b'], ['c', 'd'], ['e', ''], ['f']]);
  });

  it('keeps a quote that does not end its quoted field, and quotes inside unquoted fields', () => {
    const records = [...readCsvRecords('"say "hi" now", x"y , "a""b"\n', ',', UNCAPPED, 't.csv')];
    expect(records).to.deep.equal([['say "hi" now', 'x"y', 'a"b']]);
  });

  describe('caps, checked while reading', () => {
    it('refuses a 2 MB file on one line at its 16,385th field, before reading the rest of the line', async () => {
      // The line ends in a quote that never closes: reading the whole line would report that instead.
      const line = `${Array.from({ length: 200_000 }, (_, i) => `v${i}`).join(',')},"never closed`;
      const error = await expectCode(parseCsv(bytesOf(line), textContext('one-line.csv')), 'too_large');
      expect(error.message).to.contain('more than 16384 fields').and.contain('PARSE_MAX_ROW_FIELDS');
    });

    it('refuses a field longer than maxFieldChars, quoted or not, before reaching its end', async () => {
      const limits = { maxFieldChars: 100 };
      const long = 'x'.repeat(5_000);
      for (const text of [`a,b\n1,${long}\n`, `a,b\n1,"${long}`]) {
        const error = await expectCode(
          parseCsv(bytesOf(text), textContext('f.csv', { limits })),
          'too_large',
        );
        expect(error.message)
          .to.contain('line 2 is longer than 100 characters')
          .and.contain('PARSE_MAX_FIELD_CHARS');
      }
    });

    it('refuses more rows than maxRows, counting rows and not line breaks inside quotes', async () => {
      const quoted = 'a,"line one\nline two\nline three"\n'.repeat(3);
      const parsed = await parseCsv(bytesOf(quoted), textContext('q.csv', { limits: { maxRows: 3 } }));
      expect(parsed.metadata.extra).to.deep.include({ rows: 3 });
      const error = await expectCode(
        parseCsv(bytesOf('a,b\n'.repeat(4)), textContext('rows.csv', { limits: { maxRows: 3 } })),
        'too_large',
      );
      expect(error.message).to.contain('more than 3 rows').and.contain('PARSE_MAX_ROWS');
    });
  });

  describe('bad input', () => {
    it('refuses more cells than maxCells while reading', async () => {
      const text = Array.from({ length: 2000 }, (_, i) => `${i},a,b,c,d`).join('\n');
      const error = await expectCode(
        parseCsv(bytesOf(text), textContext('big.csv', { limits: { maxCells: 1000 } })),
        'too_large',
      );
      expect(error.message).to.contain('maxCells');
    });

    it('reports an unterminated quote as corrupt', async () => {
      await expectCode(
        parseCsv(bytesOf('a,b\n1,"never closed\n2,3\n'), textContext('broken.csv')),
        'corrupt_document',
      );
    });

    it('reports a file of empty lines and delimiters as empty', async () => {
      await expectCode(parseCsv(bytesOf('\n;;;\n\n'), textContext('blank.csv')), 'empty_document');
    });
  });
});
