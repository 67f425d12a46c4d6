import { expect } from 'chai';
import { detectFormat, extensionOf } from '../../../src/parsing/detect/index.js';
// Every fixture here is one of the text fixtures (detect/ holds one small file per binary type).
import { bytesOf, expectCode, fixture as file } from '../text/support.js';

describe('detectFormat', () => {
  describe('binary formats, recognised by their bytes', () => {
    const cases: Array<[string, string, string]> = [
      ['detect/report.pdf', 'report.pdf', '.pdf'],
      ['detect/chart.png', 'chart.png', '.png'],
      ['detect/chart.jpg', 'photo.jpg', '.jpg'],
      ['detect/chart.jpg', 'photo.JPEG', '.jpeg'],
      ['detect/chart.tif', 'scan.tif', '.tif'],
      ['detect/chart.tif', 'scan.tiff', '.tiff'],
      ['detect/chart.bmp', 'chart.bmp', '.bmp'],
      ['detect/report.docx', 'Report.DOCX', '.docx'],
      ['detect/slides.pptx', 'slides.pptx', '.pptx'],
      ['detect/inventory.xlsx', 'inventory.xlsx', '.xlsx'],
    ];
    for (const [path, name, expected] of cases) {
      it(`reads ${name} (LibreOffice/ImageMagick output) as ${expected}`, async () => {
        expect(await detectFormat(file(path), name)).to.equal(expected);
      });
    }

    it('names the type from the bytes when the file has no extension', async () => {
      expect(await detectFormat(file('detect/report.pdf'), 'report')).to.equal('.pdf');
      expect(await detectFormat(file('detect/chart.jpg'), 'IMG_0001')).to.equal('.jpg');
      expect(await detectFormat(file('detect/chart.tif'), 'scan')).to.equal('.tiff');
      expect(await detectFormat(file('detect/slides.pptx'), 'deck')).to.equal('.pptx');
      expect(await detectFormat(file('detect/inventory.xlsx'), 'export')).to.equal('.xlsx');
    });

    it('tells DOCX, PPTX and XLSX apart from the ZIP central directory, whatever the name says', async () => {
      const error = await expectCode(
        detectFormat(file('detect/slides.pptx'), 'slides.docx'),
        'format_mismatch',
      );
      expect(error.message).to.contain('.docx').and.to.contain('PPTX');
      await expectCode(detectFormat(file('detect/inventory.xlsx'), 'inventory.pptx'), 'format_mismatch');
    });

    it('accepts bytes of a supported type under an unknown extension', async () => {
      expect(await detectFormat(file('detect/report.pdf'), 'report.pdf.download')).to.equal('.pdf');
    });
  });

  describe('mislabelled files', () => {
    it('rejects a PNG named .pdf, naming both types', async () => {
      const error = await expectCode(
        detectFormat(file('detect/chart.png'), 'invoice.pdf'),
        'format_mismatch',
      );
      expect(error.message).to.contain('.pdf').and.to.contain('PNG image');
    });

    it('rejects a PDF named .docx', async () => {
      const error = await expectCode(
        detectFormat(file('detect/report.pdf'), 'report.docx'),
        'format_mismatch',
      );
      expect(error.message).to.contain('.docx').and.to.contain('PDF document');
    });

    it('rejects binary data named .txt', async () => {
      const error = await expectCode(detectFormat(file('detect/chart.png'), 'notes.txt'), 'format_mismatch');
      expect(error.message).to.contain('PNG');
      await expectCode(detectFormat(file('detect/notes.zip'), 'notes.txt'), 'format_mismatch');
      const random = new Uint8Array(4096).map((_, i) => (i * 7919 + 13) % 256);
      await expectCode(detectFormat(random, 'data.csv'), 'format_mismatch');
    });

    it('rejects text named after a binary format', async () => {
      const error = await expectCode(detectFormat(bytesOf('Just a note.\n'), 'scan.png'), 'format_mismatch');
      expect(error.message).to.contain('text');
    });

    it('rejects a GIF named .png and a plain ZIP or an OpenDocument file named .docx', async () => {
      expect(
        (await expectCode(detectFormat(file('detect/chart.gif'), 'chart.png'), 'format_mismatch')).message,
      ).to.contain('GIF');
      expect(
        (await expectCode(detectFormat(file('detect/notes.zip'), 'notes.docx'), 'format_mismatch')).message,
      ).to.contain('ZIP');
      expect(
        (await expectCode(detectFormat(file('detect/report.odt'), 'report.docx'), 'format_mismatch')).message,
      ).to.contain('OpenDocument');
    });

    it('rejects a legacy Word .doc renamed .docx as a mismatch, not as encrypted', async () => {
      const error = await expectCode(
        detectFormat(file('detect/report.doc'), 'report.docx'),
        'format_mismatch',
      );
      expect(error.message).to.contain('OLE2');
    });
  });

  describe('text formats: the name wins among them', () => {
    it('keeps every text extension when the bytes are text', async () => {
      expect(await detectFormat(file('article.html'), 'page.txt')).to.equal('.txt');
      expect(await detectFormat(file('readme.md'), 'README.markdown')).to.equal('.markdown');
      expect(await detectFormat(file('guide.rst'), 'guide.rst')).to.equal('.rst');
      expect(await detectFormat(file('report.html'), 'report.HTM')).to.equal('.htm');
      expect(await detectFormat(file('api-response.json'), 'response.json')).to.equal('.json');
      expect(await detectFormat(file('inventory.csv'), 'inventory.csv')).to.equal('.csv');
    });

    it('accepts UTF-16 text with a byte-order mark even though it is full of NUL bytes', async () => {
      expect(await detectFormat(file('notes-utf16le.txt'), 'notes.txt')).to.equal('.txt');
      expect(await detectFormat(file('notes-utf16be.txt'), 'notes.txt')).to.equal('.txt');
    });

    it('accepts windows-1256 Arabic and text with invalid UTF-8', async () => {
      expect(await detectFormat(file('arabic-1256.txt'), 'arabic.txt')).to.equal('.txt');
      expect(await detectFormat(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0xc3]), 'menu.txt')).to.equal(
        '.txt',
      );
    });

    it('reads a PDF written in plain ASCII as a PDF, though its bytes look like text', async () => {
      const asciiPdf = bytesOf(
        '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
      );
      expect(await detectFormat(asciiPdf, 'plain')).to.equal('.pdf');
      expect(await detectFormat(asciiPdf, 'plain.pdf')).to.equal('.pdf');
      const error = await expectCode(detectFormat(asciiPdf, 'plain.txt'), 'format_mismatch');
      expect(error.message).to.contain('PDF document');
    });

    it('does not mistake text starting with "BM" or "MZ" for a bitmap or an executable', async () => {
      expect(await detectFormat(bytesOf('BMW annual report\nRevenue grew.\n'), 'cars.txt')).to.equal('.txt');
      expect(await detectFormat(bytesOf('MZ Industries\n'), 'notes.md')).to.equal('.md');
      expect(
        await detectFormat(bytesOf('<?xml version="1.0"?><html><body>x</body></html>'), 'page.html'),
      ).to.equal('.html');
    });

    it('sniffs HTML and JSON when there is no extension, and calls other text .txt', async () => {
      expect(await detectFormat(file('article.html'), 'index')).to.equal('.html');
      expect(await detectFormat(file('api-response.json'), 'response')).to.equal('.json');
      expect(await detectFormat(file('guide.rst'), 'README')).to.equal('.txt');
    });
  });

  describe('unsupported, encrypted and empty', () => {
    it('reports an encrypted OOXML package (an OLE file) named .docx as encrypted', async () => {
      await expectCode(detectFormat(file('detect/encrypted.docx'), 'secret.docx'), 'encrypted_document');
      await expectCode(detectFormat(file('detect/encrypted.docx'), 'secret.xlsx'), 'encrypted_document');
      await expectCode(detectFormat(file('detect/encrypted.docx'), 'secret'), 'encrypted_document');
    });

    it('rejects an unsupported extension the bytes cannot turn into a supported type', async () => {
      const error = await expectCode(
        detectFormat(bytesOf('print("hi")\n'), 'script.py'),
        'unsupported_format',
      );
      expect(error.message).to.contain('.py');
      await expectCode(detectFormat(file('detect/chart.gif'), 'chart.gif'), 'unsupported_format');
      await expectCode(detectFormat(file('detect/notes.zip'), 'notes.zip'), 'unsupported_format');
      await expectCode(detectFormat(file('detect/report.doc'), 'report.doc'), 'unsupported_format');
    });

    it('rejects unrecognisable binary data without an extension', async () => {
      const random = new Uint8Array(2048).map((_, i) => (i * 7919 + 13) % 256);
      await expectCode(detectFormat(random, 'blob'), 'unsupported_format');
    });

    it('reports zero bytes as empty, whatever the name', async () => {
      await expectCode(detectFormat(new Uint8Array(0), 'empty.pdf'), 'empty_document');
      await expectCode(detectFormat(new Uint8Array(0), 'empty.txt'), 'empty_document');
    });

    it('leaves a truncated DOCX to the DOCX parser (which reports the damage) but refuses it under other names', async () => {
      const whole = file('detect/report.docx');
      const truncated = whole.subarray(0, Math.floor(whole.length / 2));
      expect(await detectFormat(truncated, 'report.docx')).to.equal('.docx');
      await expectCode(detectFormat(truncated, 'report.pdf'), 'format_mismatch');
      await expectCode(detectFormat(truncated, 'report'), 'unsupported_format');
    });
  });

  it('extracts lower-case extensions; dot-files and trailing dots have none', () => {
    expect(extensionOf('dir/sub/Report.Final.PDF')).to.equal('.pdf');
    expect(extensionOf('C:\\docs\\notes.TXT')).to.equal('.txt');
    expect(extensionOf('.bashrc')).to.equal(null);
    expect(extensionOf('README')).to.equal(null);
    expect(extensionOf('odd.')).to.equal(null);
  });
});
