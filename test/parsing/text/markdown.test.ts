import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { chunkDocument } from '../../../src/parsing/chunk/chunkDocument.js';
import { DEFAULT_MAX_WORDS, DEFAULT_TARGET_WORDS } from '../../../src/parsing/chunk/model.js';
import { parseMarkdown } from '../../../src/parsing/text/index.js';
import {
  blocksOf,
  bytesOf,
  expectCode,
  fixture,
  FIXTURES,
  headings,
  paragraphs,
  textContext,
} from './support.js';

describe('parseMarkdown', () => {
  it('reads a README: front matter, ATX and setext headings of three levels, lists, table, code, images', async () => {
    const document = await parseMarkdown(fixture('readme.md'), textContext('readme.md'));
    expect(document.format).to.equal('.md');
    expect(document.metadata).to.deep.include({
      title: 'Riverwatch Toolkit',
      author: 'Amira Haddad',
      numPages: 1,
    });
    expect(document.metadata.extra).to.deep.equal({ date: '2024-03-18', tags: 'rivers, citizen science' });
    expect(headings(document)).to.deep.equal([
      [1, 'Riverwatch Toolkit'],
      [2, 'Installation'],
      [3, 'Requirements'],
      [2, 'Configuration'],
      [2, 'Usage'],
      [2, 'Licence'],
    ]);

    const [requirements, steps] = blocksOf(document, 'list');
    expect(requirements).to.include({ ordered: false });
    expect(requirements?.items).to.deep.equal([
      'Python 3.10 or newer',
      'A GPS-enabled phone',
      '  Android 12+',
      '  iOS 16+',
      'One of the field kits:',
      '  Basic kit',
      '  Turbidity kit',
    ]);
    expect(steps).to.include({ ordered: true });
    expect(steps?.items).to.have.length(3);

    const [table] = blocksOf(document, 'table');
    expect(table?.table.hasHeader).to.equal(true);
    expect(table?.table.cells).to.deep.equal([
      ['Option', 'Default', 'Meaning'],
      ['units', 'metric', 'Units for depth and distance'],
      ['photo_dir', '~/Pictures', 'Where repeat photos are stored'],
      ['upload', 'false', 'Send readings to the shared sheet'],
    ]);
    expect(table?.table.index).to.equal(0);

    const code = document.blocks.filter((block) => block.type === 'paragraph' && block.preformatted);
    expect(code.map((block) => (block.type === 'paragraph' ? block.text : ''))).to.deep.equal([
      'pip install riverwatch-toolkit\nriverwatch --version',
      'riverwatch survey --site RW-04\nriverwatch export --format csv',
    ]);
  });

  it('reduces inline markup to text and keeps link text', async () => {
    const document = await parseMarkdown(fixture('readme.md'), textContext('readme.md'));
    expect(paragraphs(document)).to.include(
      'A small set of scripts for\nvolunteers who record river bank erosion, water temperature and turbidity.',
    );
    expect(paragraphs(document)).to.include(
      'The configuration file lives in ~/.riverwatch/config.toml. See the configuration guide for\nevery option.',
    );
    expect(paragraphs(document)).to.include(
      'Note: readings are stored locally until you run riverwatch sync.',
    );
    expect(paragraphs(document)).to.include('MIT © Riverwatch volunteers.');
  });

  it('turns images into image blocks: data: URIs decoded, remote images only described by alt text', async () => {
    const document = await parseMarkdown(fixture('readme.md'), textContext('readme.md'));
    const images = blocksOf(document, 'image').map((block) => block.image);
    expect(images.map((image) => image.altText)).to.deep.equal([
      'Riverwatch logo',
      'Build status',
      'Erosion chart for site RW-04',
    ]);
    expect(images.map((image) => image.index)).to.deep.equal([0, 1, 2]);
    expect(images[0]?.data).to.equal(null);
    expect(images[0]?.width).to.equal(120);
    const chart = images[2];
    const png = readFileSync(`${FIXTURES}detect/chart.png`);
    expect(Buffer.from(chart?.data ?? []).equals(png)).to.equal(true);
    expect(chart).to.deep.include({
      format: 'png',
      width: 120,
      height: 80,
      description: '',
      kind: 'unknown',
    });
  });

  it('takes the title from the first heading without front matter, and .markdown keeps its extension', async () => {
    const document = await parseMarkdown(
      bytesOf('Intro line.\n\nSetext title\n============\n\nText.\n'),
      textContext('notes.markdown'),
    );
    expect(document.format).to.equal('.markdown');
    expect(document.metadata.title).to.equal('Setext title');
    expect(document.metadata.author).to.equal(null);
    expect(headings(document)).to.deep.equal([[1, 'Setext title']]);
  });

  describe('titles and decorations of READMEs', () => {
    // The shape of many package READMEs (Koa's among them): a logo, a row of badges, the project's
    // pitch, then sections, and a last "# License".
    const readme = [
      '<img src="/docs/logo.png" alt="Quarry request router for nodejs"/>',
      '',
      '  [![gitter][gitter-image]][gitter-url]',
      '  [![NPM version][npm-image]][npm-url]',
      '  [![build status][ci-image]][ci-url]',
      '',
      '  Expressive routing for HTTP servers, small and fast.',
      '',
      '## Installation',
      '',
      'Quarry requires __node v18.0.0__ or higher.',
      '',
      '![Request flow through the router](docs/flow.png)',
      '',
      '# License',
      '',
      'MIT',
      '',
      '[gitter-image]: https://img.shields.io/gitter/room/quarry/quarry.svg',
      '[gitter-url]: https://gitter.im/quarry/quarry',
      '[npm-image]: https://img.shields.io/npm/v/quarry.svg',
      '[npm-url]: https://www.npmjs.com/package/quarry',
      '[ci-image]: https://github.com/quarry/quarry/actions/workflows/node.js.yml/badge.svg',
      '[ci-url]: https://github.com/quarry/quarry/actions',
      '',
    ].join('\n');

    it('titles a README by what opens it (its logo), never by a later heading', async () => {
      const document = await parseMarkdown(bytesOf(readme), textContext('Readme.md'));
      expect(document.metadata.title).to.equal('Quarry request router for nodejs');
      const opening = await parseMarkdown(
        bytesOf(
          '[![build](https://img.shields.io/b.svg)](ci)\n\n## Terminal string styling\n\nText.\n\n# License\n\nMIT\n',
        ),
        textContext('readme.md'),
      );
      expect(opening.metadata.title).to.equal('Terminal string styling');
      const sectionsOnly = await parseMarkdown(
        bytesOf('Some introduction.\n\n## Installation\n\nnpm install it\n'),
        textContext('tool-guide.md'),
      );
      expect(sectionsOnly.metadata.title).to.equal('tool-guide');
    });

    it('counts badges and logos among the images but keeps them out of the chunks; a figure keeps its text', async () => {
      const document = await parseMarkdown(bytesOf(readme), textContext('Readme.md'));
      const images = blocksOf(document, 'image').map((block) => [block.image.altText, block.image.kind]);
      expect(images).to.deep.equal([
        ['Quarry request router for nodejs', 'decoration'],
        ['gitter', 'decoration'],
        ['NPM version', 'decoration'],
        ['build status', 'decoration'],
        ['Request flow through the router', 'unknown'],
      ]);
      const { chunks } = chunkDocument(document, {
        mode: 'auto',
        targetWords: DEFAULT_TARGET_WORDS,
        maxWords: DEFAULT_MAX_WORDS,
        documentId: 'r',
      });
      const text = chunks.map((chunk) => chunk.content).join('\n');
      expect(text).to.include('Expressive routing for HTTP servers');
      expect(text).to.include('Request flow through the router');
      for (const badge of ['gitter', 'NPM version', 'build status', 'Quarry request router']) {
        expect(text).not.to.include(badge);
      }
    });
  });

  it('skips HTML blocks of comments, but reads the text after an empty comment (<!-->)', async () => {
    const markdown = [
      'Intro.',
      '<!-- badges: start -->\n<!-- badges: end -->',
      '<!--> shown after an empty comment',
      'End.',
    ].join('\n\n');
    const document = await parseMarkdown(bytesOf(`${markdown}\n`), textContext('comments.md'));
    expect(paragraphs(document)).to.deep.equal(['Intro.', 'shown after an empty comment', 'End.']);
  });

  it('treats a leading --- pair without keys as a rule, not front matter', async () => {
    const document = await parseMarkdown(bytesOf('---\n\n---\n\nBody text.\n'), textContext('rule.md'));
    expect(paragraphs(document)).to.deep.equal(['Body text.']);
    expect(document.metadata.title).to.equal('rule');
  });

  describe('bad input', () => {
    it('refuses 100,000 nested block quotes and deeply nested lists as too_complex, quickly', async () => {
      const started = performance.now();
      await expectCode(
        parseMarkdown(bytesOf(`${'>'.repeat(100_000)} deep\n`), textContext('quotes.md')),
        'too_complex',
      );
      const list = Array.from({ length: 300 }, (_, i) => `${' '.repeat(i * 2)}- item ${i}\n`).join('');
      await expectCode(parseMarkdown(bytesOf(list), textContext('lists.md')), 'too_complex');
      expect(performance.now() - started).to.be.below(1000);
    });

    it('reads lists nested below the limit completely', async () => {
      const list = Array.from({ length: 5 }, (_, i) => `${' '.repeat(i * 2)}- item ${i}\n`).join('');
      const document = await parseMarkdown(bytesOf(list), textContext('lists.md'));
      expect(blocksOf(document, 'list')[0]?.items).to.deep.equal([
        'item 0',
        '  item 1',
        '    item 2',
        '      item 3',
        '        item 4',
      ]);
    });
  });
});
