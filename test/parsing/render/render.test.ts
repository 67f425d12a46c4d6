import { expect } from 'chai';
import type { Image } from '../../../src/parsing/model.js';
import { imageText, renderFullText, renderMarkdown } from '../../../src/parsing/render/index.js';
import { heading, imageBlock, list, makeDocument, paragraph, tableBlock } from '../chunk/sampleDocuments.js';

const report = makeDocument(
  [
    heading('Annual Water Quality Report 2024', 1, 1),
    paragraph('The utility treated 41.2 million cubic metres.', 1),
    heading('Sampling', 2, 2),
    list(['Forty points.', 'Daily chlorine.'], 2),
    list(['Plan', 'Measure'], 2, true),
    tableBlock(
      [
        ['Zone', 'Chlorine'],
        ['North', '0.32'],
        ['South|East', '0.41'],
      ],
      2,
      0,
      'Table 1: Chlorine by zone',
    ),
    imageBlock('A bar chart of turbidity by month.', 3),
    { type: 'paragraph', text: '# not a heading\n- not a list\n1. not a list either', page: 3 },
    { type: 'paragraph', text: 'const a = 1;\nconsole.log(a);', page: 3, preformatted: true },
  ],
  { title: 'Annual Water Quality Report 2024' },
);

describe('renderFullText', () => {
  it('renders headings, paragraphs, lists, tables and images in reading order', () => {
    expect(renderFullText(report, { includeTables: true, includeImages: true })).to.equal(
      [
        '# Annual Water Quality Report 2024',
        'The utility treated 41.2 million cubic metres.',
        '## Sampling',
        '- Forty points.\n- Daily chlorine.',
        '1. Plan\n2. Measure',
        'Table 1: Chlorine by zone\n\n| Zone | Chlorine |\n| --- | --- |\n| North | 0.32 |\n| South\\|East | 0.41 |',
        '[Image p.3: A bar chart of turbidity by month.]',
        '# not a heading\n- not a list\n1. not a list either',
        'const a = 1;\nconsole.log(a);',
      ].join('\n\n'),
    );
  });

  it('leaves tables and images out when asked', () => {
    const text = renderFullText(report, { includeTables: false, includeImages: false });
    expect(text).not.to.include('| Zone |');
    expect(text).not.to.include('[Image');
    expect(text).to.include('## Sampling\n\n- Forty points.');
  });
});

describe('renderMarkdown', () => {
  it('does not repeat a title the document opens with, fences code and escapes misleading starts', () => {
    const markdown = renderMarkdown(report);
    expect(markdown.startsWith('# Annual Water Quality Report 2024\n\nThe utility')).to.equal(true);
    expect(markdown.match(/# Annual Water Quality Report 2024/g)).to.have.length(1);
    expect(markdown).to.include('\\# not a heading\n\\- not a list\n1\\. not a list either');
    expect(markdown).to.include('```\nconst a = 1;\nconsole.log(a);\n```');
    expect(markdown).to.include('| South\\|East | 0.41 |');
    expect(markdown).to.include('[Image p.3: A bar chart of turbidity by month.]');
  });

  it('adds the title when the document does not open with it', () => {
    const document = makeDocument([paragraph('Body.')], { title: 'Minutes of the board' });
    expect(renderMarkdown(document)).to.equal('# Minutes of the board\n\nBody.');
  });
});

describe('imageText', () => {
  const base: Image = {
    index: 0,
    pageNumber: 4,
    description: '',
    format: 'jpeg',
    width: 640,
    height: 480,
    altText: null,
    ocrText: null,
    kind: 'photo',
    data: null,
  };

  it('prefers the description, then the alternative text, then OCR text, then format and size', () => {
    expect(imageText({ ...base, description: 'A photo of a reservoir.', altText: 'reservoir' })).to.equal(
      'A photo of a reservoir.',
    );
    expect(imageText({ ...base, altText: 'Reservoir at dawn' })).to.equal('Reservoir at dawn');
    expect(imageText({ ...base, ocrText: 'NO\nENTRY' })).to.equal('image with the text "NO ENTRY"');
    expect(imageText(base)).to.equal('jpeg 640×480, no description');
  });
});
