import { expect } from 'chai';
import type { ParsedDocument } from '../../../src/parsing/model.js';
import { parsePdf } from '../../../src/parsing/pdf/index.js';
import { fixture, pdfContext } from './pdfContext.js';

describe('parsePdf on right-to-left Arabic text (arabic.pdf)', () => {
  let doc: ParsedDocument;

  before(async () => {
    doc = await parsePdf(fixture('arabic.pdf'), pdfContext('arabic.pdf'));
  });

  it('reads the Arabic title and author from the Info dictionary', () => {
    expect(doc.metadata.title).to.equal('تقرير محطات الرصد');
    expect(doc.metadata.author).to.equal('سلمى العلي');
    expect(doc.metadata.numPages).to.equal(1);
  });

  it('reads Arabic headings on two levels', () => {
    const headings = doc.blocks.flatMap((block) =>
      block.type === 'heading' ? [[block.text, block.level]] : [],
    );
    expect(headings).to.deep.equal([
      ['تقرير محطات الرصد الجوي', 1],
      ['النتائج', 2],
    ]);
  });

  it('keeps the words in logical order and right-aligned lines in one paragraph', () => {
    const paragraphs = doc.blocks.flatMap((block) => (block.type === 'paragraph' ? [block.text] : []));
    expect(paragraphs).to.have.length(3);
    const [first, second, third] = paragraphs;
    expect(first?.split('\n')).to.have.length(2);
    expect(first).to.include('يلخص هذا التقرير عمل شبكة محطات الرصد');
    expect(first).to.include('ثم أرسلت ملخصا يوميا إلى الأرشيف المركزي.');
    for (const word of ['لأن', 'لإنشاء', 'لآخر', 'المحطات', 'الساحلية']) expect(second).to.include(word);
    expect(third).to.include('قال المهندس');
  });

  it('leaves the lam-alef ligature as pdf.js extracts it, for the cleaning stage to repair', () => {
    // The standalone "لا" is one glyph in the font; pdf.js decomposes it with a space inside.
    const text = doc.blocks.map((block) => (block.type === 'paragraph' ? block.text : '')).join('\n');
    expect(text).to.include('ل ا توجد أعطال كبيرة');
    expect(text).to.include('ل ا بد من فحص');
  });
});
