import { expect } from 'chai';
import { parseRst } from '../../../src/parsing/text/index.js';
import { blocksOf, bytesOf, expectCode, fixture, headings, paragraphs, textContext } from './support.js';

describe('parseRst', () => {
  it('reads section levels by first appearance of each adornment style, overlined title first', async () => {
    const document = await parseRst(fixture('guide.rst'), textContext('guide.rst'));
    // The same structure docutils 0.19 builds from this file: title, subtitle, then sections.
    expect(headings(document)).to.deep.equal([
      [1, 'Riverwatch Field Guide'],
      [2, 'Measuring bank erosion step by step'],
      [3, 'Before you start'],
      [4, 'Equipment'],
      [5, 'Setting the pins'],
      [3, 'Recording results'],
    ]);
  });

  it('puts the docinfo fields into metadata and drops comments, targets and the contents directive', async () => {
    const document = await parseRst(fixture('guide.rst'), textContext('guide.rst'));
    expect(document.metadata).to.deep.include({
      title: 'Riverwatch Field Guide',
      author: 'Amira Haddad',
      numPages: 1,
    });
    expect(document.metadata.extra).to.deep.equal({
      date: '2024-03-18',
      version: '2.1',
      organization: 'Riverwatch Volunteers',
    });
    const text = JSON.stringify(document.blocks);
    expect(text).not.to.contain('This comment is dropped');
    expect(text).not.to.contain('Table of contents');
    expect(text).not.to.contain('equipment:');
  });

  it('reduces inline markup, keeps admonitions and footnotes as paragraphs', async () => {
    const document = await parseRst(fixture('guide.rst'), textContext('guide.rst'));
    expect(paragraphs(document)).to.include.members([
      'This guide explains how to set up erosion pins, take repeat photos and record\n' +
        'the results. Read the safety notes first, and\n' +
        'check the equipment list before leaving home [#kit].',
      'Note: Never work alone near fast water.\nTell someone where you are going.',
      'The pins are recorded in a simple file:',
      '[#kit] The basic kit contains twelve pins and a ruler.',
    ]);
  });

  it('reads bullet lists with a nested list and enumerated lists', async () => {
    const document = await parseRst(fixture('guide.rst'), textContext('guide.rst'));
    const [equipment, steps] = blocksOf(document, 'list');
    expect(equipment).to.include({ ordered: false });
    expect(equipment?.items).to.deep.equal([
      'Steel pins, 60 cm long',
      'A folding ruler',
      '  metric scale',
      '  accurate to 1 mm',
      'A camera with a fixed lens',
    ]);
    expect(steps).to.include({ ordered: true });
    expect(steps?.items).to.deep.equal([
      'Choose a bank section without tree roots.',
      'Push each pin horizontally into the bank face.',
      'Leave 5 cm visible and note the pin number.',
    ]);
  });

  it('keeps literal blocks and code-block directives as preformatted text', async () => {
    const document = await parseRst(fixture('guide.rst'), textContext('guide.rst'));
    const code = blocksOf(document, 'paragraph').filter((block) => block.preformatted);
    expect(code.map((block) => block.text)).to.deep.equal([
      'site_id, pin_id, exposed_cm\nRW-04, P1, 5.0',
      'from riverwatch import Survey\nSurvey("RW-04").add_pin("P1", exposed_cm=5.0)',
    ]);
  });

  it('reads a grid table with a row span and a two-line header cell, and a simple table', async () => {
    const document = await parseRst(fixture('guide.rst'), textContext('guide.rst'));
    const [grid, simple] = blocksOf(document, 'table').map((block) => block.table);
    expect(grid?.hasHeader).to.equal(true);
    expect(grid?.cells).to.deep.equal([
      ['Site', 'Pin', 'Exposed\n(cm)'],
      ['RW-04', 'P1', '7.5'],
      ['RW-04', 'P2', '6.0'],
      ['RW-07', 'P1', '12.0'],
    ]);
    expect(simple?.hasHeader).to.equal(true);
    expect(simple?.cells).to.deep.equal([
      ['Season', 'Months', 'Visits'],
      ['Spring', 'Mar--May', '2'],
      ['Autumn', 'Sep--Nov', '1'],
    ]);
    expect([grid?.index, simple?.index]).to.deep.equal([0, 1]);
  });

  it('turns image and figure directives into image blocks with their alt text, and keeps the caption', async () => {
    const document = await parseRst(fixture('guide.rst'), textContext('guide.rst'));
    const images = blocksOf(document, 'image').map((block) => block.image);
    expect(images.map((image) => [image.altText, image.format, image.data])).to.deep.equal([
      ['An erosion pin sticking out of a muddy bank', 'jpeg', null],
      ['Site RW-04 in March 2024', 'png', null],
    ]);
    expect(paragraphs(document)).to.include('Site RW-04 seen from the fixed photo post.');
  });

  it('reads csv-table and list-table directives as tables with their title as caption', async () => {
    const text = [
      '.. csv-table:: Pins per site',
      '   :header: "Site", "Pins"',
      '',
      '   RW-04, 12',
      '   "RW-07, lower", 8',
      '',
      '.. list-table:: Kit',
      '   :header-rows: 1',
      '',
      '   * - Item',
      '     - Count',
      '   * - Pins',
      '     - 12',
      '',
    ].join('\n');
    const tables = blocksOf(await parseRst(bytesOf(text), textContext('tables.rst')), 'table').map(
      (block) => block.table,
    );
    expect(tables.map((table) => [table.caption, table.hasHeader, table.cells])).to.deep.equal([
      [
        'Pins per site',
        true,
        [
          ['Site', 'Pins'],
          ['RW-04', '12'],
          ['RW-07, lower', '8'],
        ],
      ],
      [
        'Kit',
        true,
        [
          ['Item', 'Count'],
          ['Pins', '12'],
        ],
      ],
    ]);
  });

  it('reads a :Title: field as the title and treats a later field list as text', async () => {
    const text = ':Title: Pin survey\n:Author: J. Weber\n\nIntro.\n\n:Owner: field team\n';
    const document = await parseRst(bytesOf(text), textContext('fields.rst'));
    expect(document.metadata).to.deep.include({ title: 'Pin survey', author: 'J. Weber' });
    expect(paragraphs(document)).to.deep.equal(['Intro.', 'Owner: field team']);
  });

  it('refuses block quotes nested beyond maxNestingDepth quickly', async () => {
    const lines = Array.from({ length: 400 }, (_, depth) => `${' '.repeat(depth)}level ${depth}\n`);
    const text = lines.map((line) => `${line}\n`).join('');
    await expectCode(parseRst(bytesOf(text), textContext('deep.rst')), 'too_complex');
  });
});
