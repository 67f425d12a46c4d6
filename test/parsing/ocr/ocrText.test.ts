import { expect } from 'chai';
import { hasWord, levenshtein, similarity } from './ocrText.js';

describe('fuzzy OCR word matching (test helper)', () => {
  it('allows one wrong letter in five, two in ten, none in short words', () => {
    expect(levenshtein('library', 'libary')).to.equal(1);
    expect(similarity('morning', 'moming')).to.be.closeTo(5 / 7, 0.001);
    expect(hasWord('The libary opens', 'library')).to.equal(true);
    expect(hasWord('The lbrry opens', 'library')).to.equal(false);
    expect(hasWord('Q1 Q2', 'Q3')).to.equal(false);
    expect(hasWord('Revenue 2O24', '2024')).to.equal(false);
    expect(hasWord('Revenue 2O245', '20245')).to.equal(true);
  });

  it('compares Arabic after NFC, letter by letter', () => {
    expect(hasWord('مرحبا بكم في المكتبة', 'المكتبة')).to.equal(true);
    expect(hasWord('مرحبا بكم', 'المكتبة')).to.equal(false);
  });
});
