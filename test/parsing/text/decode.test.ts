import { expect } from 'chai';
import { decodeText } from '../../../src/parsing/text/index.js';
import { fixture } from './support.js';

describe('decodeText', () => {
  it('decodes UTF-8 with and without a BOM', () => {
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0xc3, 0xa9]))).to.deep.equal({
      text: 'hé',
      encoding: 'utf-8',
      bom: true,
    });
    expect(decodeText(new Uint8Array([0x68, 0xc3, 0xa9]))).to.deep.equal({
      text: 'hé',
      encoding: 'utf-8',
      bom: false,
    });
  });

  it('decodes UTF-16 LE and BE files written by iconv (with BOM)', () => {
    const le = decodeText(fixture('notes-utf16le.txt'));
    const be = decodeText(fixture('notes-utf16be.txt'));
    expect(le.encoding).to.equal('utf-16le');
    expect(be.encoding).to.equal('utf-16be');
    expect(le.text).to.equal(be.text);
    expect(le.text.startsWith('Meeting notes — Riverwatch committee\n')).to.equal(true);
    expect(le.text).to.contain('Zoë, René').and.to.contain('\f');
  });

  it('falls back to windows-1256 for Arabic and to windows-1252 for Latin text', () => {
    const arabic = decodeText(fixture('arabic-1256.txt'));
    expect(arabic.encoding).to.equal('windows-1256');
    expect(arabic.text).to.equal(decodeText(fixture('arabic.txt')).text);
    const latin = decodeText(new Uint8Array([0x4e, 0x61, 0xef, 0x76, 0x65, 0x20, 0x63, 0x61, 0x66, 0xe9]));
    expect(latin).to.deep.equal({ text: 'Naïve café', encoding: 'windows-1252', bom: false });
  });

  it('keeps UTF-8 for a file whose last character was cut off, and removes NUL characters', () => {
    const cut = decodeText(new Uint8Array([0x61, 0xd8, 0xa8, 0xd8]));
    expect(cut.encoding).to.equal('utf-8');
    expect(cut.text.startsWith('aب')).to.equal(true);
    expect(decodeText(new Uint8Array([0x61, 0x00, 0x62])).text).to.equal('ab');
  });
});
