import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parseHtml } from '../../../src/parsing/text/index.js';
import {
  blocksOf,
  bytesOf,
  expectCode,
  fixture,
  FIXTURES,
  headings,
  paragraphs,
  REPORT_HEADINGS,
  textContext,
} from './support.js';

describe('parseHtml', () => {
  describe('a blog page with boilerplate (cookie banner, nav, ad, sidebar, footer, scripts)', () => {
    const parse = () => parseHtml(fixture('article.html'), textContext('article.html'));

    it('keeps the article headings with their levels, the page h1 included', async () => {
      expect(headings(await parse())).to.deep.equal([
        [1, 'Field notes: measuring river erosion'],
        [2, 'Why erosion matters'],
        [2, 'Our three methods'],
        [3, 'Erosion pins'],
        [3, 'Comparing the methods'],
        [2, 'Recording the data'],
      ]);
    });

    it('drops the boilerplate', async () => {
      const text = JSON.stringify((await parse()).blocks);
      for (const boilerplate of [
        'cookies',
        'Accept all',
        'About us',
        'Sponsored',
        'Related posts',
        'Willow spiling',
        'Registered charity',
        'dataLayer',
        'font-family',
      ]) {
        expect(text, boilerplate).not.to.contain(boilerplate);
      }
    });

    it('reads title (og:title), author, lang and other metadata', async () => {
      const { metadata } = await parse();
      expect(metadata).to.deep.include({
        title: 'Field notes: measuring river erosion',
        author: 'Amira Haddad',
        numPages: 1,
        language: null,
      });
      expect(metadata.extra).to.deep.equal({
        lang: 'en-GB',
        description: 'How our volunteers measure bank erosion with pins, photos and a tape.',
        siteName: 'Riverwatch Blog',
        published: '2024-03-18T09:00:00Z',
        mainContent: 'readability',
      });
    });

    it('reads paragraphs with collapsed whitespace, <br> as a line break, entities decoded', async () => {
      const texts = paragraphs(await parse());
      expect(texts[0]).to.equal(
        'Every spring our volunteers return to the same twelve river banks to see how far the water has eaten into them. ' +
          'This post explains the three methods we use, what each one costs, and how reliable the numbers are.',
      );
      expect(texts).to.include(
        'A steel pin, 60 cm long, is pushed horizontally into the bank until 5 cm remain visible.\nNext year we measure how much of the pin is exposed.',
      );
      expect(texts).to.include(
        '“The pins told us in one season what the photos needed three years to show.”',
      );
      expect(texts).to.include('Questions? Write to the field team.');
    });

    it('flattens nested lists with indentation and keeps <pre> exactly', async () => {
      const document = await parse();
      const [list] = blocksOf(document, 'list');
      expect(list).to.include({ ordered: true });
      expect(list?.items).to.deep.equal([
        'Erosion pins driven into the bank face',
        'Repeat photography from fixed posts',
        '  Same lens and height every year',
        '  Photos taken at low water',
        'Tape transects across the channel',
      ]);
      const pre = blocksOf(document, 'paragraph').find((block) => block.preformatted);
      expect(pre?.text).to.equal('site_id, date, pin_id, exposed_cm\nRW-04,  2024-03-02, P3, 7.5');
    });

    it('expands row and column spans into a rectangular grid and merges the two header rows', async () => {
      const [table] = blocksOf(await parse(), 'table');
      expect(table?.table.caption).to.equal('Cost and precision of each method');
      expect(table?.table.hasHeader).to.equal(true);
      expect(table?.table.cells).to.deep.equal([
        ['Method', 'Cost (GBP) Setup', 'Cost (GBP) Per year', 'Precision'],
        ['Erosion pins', '40', '5', '± 1 cm'],
        ['Tape transects', '25', '0', '± 1 cm'],
        ['Repeat photography', '120', '10', '± 10 cm'],
      ]);
    });

    it('decodes the data: URI image and keeps its alt text; the figure caption follows it', async () => {
      const document = await parse();
      const images = blocksOf(document, 'image');
      expect(images).to.have.length(1);
      const image = images[0]?.image;
      expect(image).to.deep.include({
        index: 0,
        format: 'png',
        width: 120,
        height: 80,
        altText: 'Bar chart of bank retreat per site in 2023',
      });
      expect(Buffer.from(image?.data ?? []).equals(readFileSync(`${FIXTURES}detect/chart.png`))).to.equal(
        true,
      );
      const at = document.blocks.indexOf(images[0]!);
      expect(document.blocks[at + 1]).to.deep.include({
        type: 'paragraph',
        text: 'Bank retreat per site, 2023.',
      });
    });
  });

  it('reads the HTML LibreOffice exports: h1–h3 from heading styles, a table with a thead header', async () => {
    const document = await parseHtml(fixture('report.html'), textContext('report.htm'));
    expect(document.format).to.equal('.htm');
    expect(document.metadata).to.deep.include({ title: 'River water quality 2023', author: 'Jonas Weber' });
    expect(document.metadata.extra.lang).to.equal('en-US');
    expect(headings(document)).to.deep.equal(REPORT_HEADINGS);
    expect(blocksOf(document, 'table')[0]?.table.cells).to.deep.equal([
      ['Station', 'Oxygen (mg/L)', 'Nitrate (mg/L)'],
      ['North Bridge', '9.1', '1.8'],
      ['Mill Weir', '8.4', '2.6'],
      ['South Ford', '7.9', '3.1'],
    ]);
    expect(blocksOf(document, 'list')[0]?.items).to.deep.equal([
      'Dissolved oxygen',
      'Nitrate concentration',
      'Turbidity',
    ]);
  });

  it('drops nav and footer even on a page too short for Readability to score', async () => {
    const html =
      '<html><head><title>Tiny</title></head><body><nav><a href="/">Home</a></nav>' +
      '<main><table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table></main>' +
      '<footer>© Site</footer></body></html>';
    const document = await parseHtml(bytesOf(html), textContext('tiny.html'));
    expect(document.blocks.map((block) => block.type)).to.deep.equal(['table']);
    expect(blocksOf(document, 'table')[0]?.table.cells).to.deep.equal([
      ['k', 'v'],
      ['a', '1'],
    ]);
    expect(document.metadata.title).to.equal('Tiny');
  });

  it('falls back to <main> when Readability finds no text (an image-only page)', async () => {
    const html =
      '<html><body><header><a href="/">Home</a></header><main><img src="https://x.example/map.png" alt="Site map of the basin">' +
      '</main><footer>© Site</footer></body></html>';
    const document = await parseHtml(bytesOf(html), textContext('map.html'));
    expect(document.metadata.extra.mainContent).to.equal('main');
    expect(document.blocks.map((block) => block.type)).to.deep.equal(['image']);
    expect(blocksOf(document, 'image')[0]?.image).to.deep.include({
      altText: 'Site map of the basin',
      data: null,
      format: 'png',
    });
  });

  it('reads a page without head or title, titling it by its first heading', async () => {
    const document = await parseHtml(
      bytesOf('<h2>Only heading</h2><p>Some text here.</p>'),
      textContext('frag.html'),
    );
    expect(document.metadata.title).to.equal('Only heading');
    expect(paragraphs(document)).to.deep.equal(['Some text here.']);
  });

  it('honours a declared legacy charset for bytes that are not UTF-8', async () => {
    const html = Buffer.concat([
      Buffer.from('<html><head><meta charset="windows-1256"><title>t</title></head><body><p>'),
      Buffer.from([0xe3, 0xd1, 0xcd, 0xc8, 0xc7]),
      Buffer.from('</p></body></html>'),
    ]);
    expect(paragraphs(await parseHtml(new Uint8Array(html), textContext('ar.html')))).to.deep.equal([
      'مرحبا',
    ]);
  });

  describe('bad input', () => {
    it('refuses 100,000 nested <div>s as too_complex before building a DOM, in well under a second', async () => {
      const depth = 100_000;
      const html = `<html><body>${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}</body></html>`;
      const started = performance.now();
      const error = await expectCode(parseHtml(bytesOf(html), textContext('deep.html')), 'too_complex');
      expect(performance.now() - started).to.be.below(1000);
      expect(error.message).to.contain('200');
    });

    it('also counts self-closed <div/> (they do not close in HTML) but not <p>, <li> or void elements', async () => {
      await expectCode(
        parseHtml(bytesOf(`<body>${'<div/>'.repeat(5000)}x</body>`), textContext('selfclosed.html')),
        'too_complex',
      );
      const flat = `<body>${'<p>para'.repeat(3000)}<ul>${'<li>item'.repeat(3000)}</ul>${'<br><img src="x.png">'.repeat(3000)}</body>`;
      const document = await parseHtml(bytesOf(flat), textContext('flat.html'));
      expect(document.blocks.length).to.be.above(0);
    });

    it('reports a page without any text as empty', async () => {
      await expectCode(
        parseHtml(
          bytesOf('<html><head><script>var a=1;</script><style>p{}</style></head><body> </body></html>'),
          textContext('blank.html'),
        ),
        'empty_document',
      );
    });
  });
});
