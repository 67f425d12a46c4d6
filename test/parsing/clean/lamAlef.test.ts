/**
 * The lam-alef ligature as pdfjs really extracts it. The PDFs in ./fixtures were typeset by LibreOffice
 * from the same sentences in four fonts (see fixtures/make.sh); the text is read here with pdfjs 5,
 * the library the PDF parser uses, so these tests follow what extraction actually produces.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { cleanDocument } from '../../../src/parsing/clean/cleanDocument.js';
import { repairLamAlef, showsReversedLamAlef } from '../../../src/text/arabic.js';
import { normalizeForIndex } from '../../../src/text/normalize.js';
import { makeDocument, paragraph } from '../chunk/sampleDocuments.js';

const SOURCE =
  'لا إله إلا الله. السلام عليكم. الإسلام والأمان والإنسان. لأن الطلاب يتعلمون اللغة. الاشتراك في الآلات. علاء وسلاح.';

async function extract(name: string): Promise<string> {
  const data = new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
  const pdf = await getDocument({ data, verbosity: 0 }).promise;
  try {
    const page = await pdf.getPage(1);
    const content = await page.getTextContent();
    return content.items
      .map((item) => ('str' in item ? item.str : ''))
      .join(' ')
      .replace(/ \./g, '.');
  } finally {
    await pdf.destroy();
  }
}

function clean(text: string): string {
  const document = cleanDocument(makeDocument([paragraph(text)]), {
    removeUrls: true,
    normalizeArabic: true,
  });
  const block = document.blocks[0];
  return block?.type === 'paragraph' ? block.text : '';
}

function tokens(text: string): string[] {
  return text.replace(/\./g, ' ').split(/\s+/).filter(Boolean);
}

describe('lam-alef ligature repair on text extracted by pdfjs', () => {
  it('repairs the fully reversed extraction of a DejaVu Sans PDF where patterns are unambiguous', async () => {
    const raw = await extract('lam-alef-dejavu-sans.pdf');
    // What pdfjs gives: every lam-alef reversed.
    expect(raw).to.include('ال إله إال الله');
    expect(raw).to.include('اإلسالم واألمان واإلنسان');
    expect(raw).to.include('االشتراك في اآلالت');

    const cleaned = clean(raw);
    expect(cleaned.startsWith('لا إله إلا الله.')).to.equal(true);
    expect(tokens(cleaned)).to.include.members(['والأمان', 'والإنسان', 'الاشتراك', 'الآلات']);
    // Article + ligature repaired; the ligature inside "سلام" reads like the word "سالم" and stays.
    expect(tokens(cleaned)).to.include('الإسالم');
    expect(cleaned).not.to.match(/(^|\s)ال(\s|$)/);
  });

  it('gives the same repair for Noto Sans Arabic, which reverses the same way', async () => {
    const sans = clean(await extract('lam-alef-noto-sans.pdf'));
    const dejavu = clean(await extract('lam-alef-dejavu-sans.pdf'));
    expect(sans).to.equal(dejavu);
  });

  it('rejoins the split isolated lam-alef and the reversed Allah ligature of Noto Naskh Arabic', async () => {
    const raw = await extract('lam-alef-noto-naskh.pdf');
    expect(raw).to.include('ل ا إله إل ا اهلل');
    // Naskh keeps every other lam-alef in order, so the result is the source text exactly.
    expect(clean(raw)).to.equal(SOURCE);
  });

  it('repairs the reversed Allah word of Noto Kufi Arabic and keeps its correct lam-alef', async () => {
    const raw = await extract('lam-alef-noto-kufi.pdf');
    expect(raw).to.include('لا إله إلا هللا');
    const cleaned = clean(raw);
    expect(cleaned.startsWith('لا إله إلا الله.')).to.equal(true);
    expect(tokens(cleaned)).to.include.members(['الإسالم', 'والأمان', 'لأن', 'الاشتراك', 'الآلات']);
  });

  it('resolves presentation forms, including the lam-alef ligatures U+FEF5–U+FEFC, in logical order', async () => {
    const raw = await extract('presentation-forms.pdf');
    expect(raw).to.match(/[\uFEFB\uFEFC]/);
    expect(clean(raw)).to.equal('السلام عليكم لا إله إلا الاشتراك والأمان الإسلام الآلات كلام');
  });

  it('decomposes lam-alef presentation forms even when Arabic normalisation is off', () => {
    const document = cleanDocument(makeDocument([paragraph('ﻻ ﺇﻟﻪ ﺇﻻ ﷲ')]), {
      removeUrls: false,
      normalizeArabic: false,
    });
    const block = document.blocks[0];
    expect(block?.type === 'paragraph' ? block.text : '').to.equal('لا ﺇﻟﻪ ﺇلا ﷲ');
  });

  it('leaves correct Arabic untouched, including words that look like a reversal', () => {
    const correct = 'قال الطالب خالد: إن الاستقلال والسلام مهمان للبلاد، ولا عالم بلا أمل. قال الأستاذ لا.';
    expect(showsReversedLamAlef([correct])).to.equal(false);
    expect(clean(correct)).to.equal(correct);
  });

  it('only treats the lone word "ال" as "لا" when the document shows the reversal', () => {
    expect(repairLamAlef('ال أعرف', { reversedDocument: true })).to.equal('لا أعرف');
    expect(repairLamAlef('ال أعرف', { reversedDocument: false })).to.equal('ال أعرف');
    expect(showsReversedLamAlef(['ال أعرف االشتراك'])).to.equal(true);
    expect(showsReversedLamAlef(['ال أعرف', 'لا إله إلا الله والسلام'])).to.equal(false);
  });

  it('makes repaired text match the source once normalised for the index', async () => {
    const naskh = clean(await extract('lam-alef-noto-naskh.pdf'));
    expect(normalizeForIndex(naskh)).to.equal(normalizeForIndex(SOURCE));
  });
});
