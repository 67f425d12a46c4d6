import { expect } from 'chai';
import { detectDocumentLanguage, detectLanguage } from '../../../src/parsing/clean/language.js';
import {
  ARABIC_SENTENCES,
  ENGLISH_SENTENCES,
  makeDocument,
  paragraph,
  prose,
} from '../chunk/sampleDocuments.js';

describe('detectLanguage', () => {
  it('names the language of sentences in English, Arabic, French and German', () => {
    expect(detectLanguage(ENGLISH_SENTENCES[0] ?? '')).to.equal('en');
    expect(detectLanguage(ARABIC_SENTENCES[1] ?? '')).to.equal('ar');
    expect(
      detectLanguage('Le comité a approuvé le budget pour la prochaine année après un long débat.'),
    ).to.equal('fr');
    expect(detectLanguage('Der Ausschuss hat den Haushalt für das nächste Jahr genehmigt.')).to.equal('de');
  });

  it('returns null for text too short to judge', () => {
    expect(detectLanguage('')).to.equal(null);
    expect(detectLanguage('hello world')).to.equal(null);
    expect(detectLanguage('12 345 6.7')).to.equal(null);
    expect(detectLanguage('| --- | --- |')).to.equal(null);
  });

  it('picks the language of most words in a long mixed text', () => {
    const mostlyArabic = [prose(400, 1, ARABIC_SENTENCES), prose(150, 2)].join('\n');
    const mostlyEnglish = [prose(150, 3, ARABIC_SENTENCES), prose(400, 4)].join('\n');
    expect(detectLanguage(mostlyArabic)).to.equal('ar');
    expect(detectLanguage(mostlyEnglish)).to.equal('en');
  });

  it('reads far past the first few hundred bytes eld looks at', () => {
    const text = `${prose(30, 5)} ${prose(600, 6, ARABIC_SENTENCES)}`;
    expect(detectLanguage(text)).to.equal('ar');
  });

  it("lets a first window in the expected language (a chunk's document's) settle it", () => {
    const opensInEnglish = `${prose(60, 9)} ${prose(400, 10, ARABIC_SENTENCES)}`;
    expect(detectLanguage(opensInEnglish)).to.equal('ar');
    expect(detectLanguage(opensInEnglish, { expected: 'en' })).to.equal('en');
    // Any other first window is not settled by the expectation: most words still win.
    expect(detectLanguage(opensInEnglish, { expected: 'ar' })).to.equal('ar');
  });

  it('detects a document language from its blocks', () => {
    const document = makeDocument([paragraph(prose(200, 7, ARABIC_SENTENCES)), paragraph(prose(50, 8))]);
    expect(detectDocumentLanguage(document)).to.equal('ar');
  });
});
