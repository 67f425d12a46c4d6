import { expect } from 'chai';
import { HELD_OUT_CORPUS, parseCorpusFile } from '../../../eval/parsing/evaluate.js';
import { documentText, normalise } from '../../../eval/parsing/score.js';
import type { ParseServices } from '../../../src/parsing/job.js';
import type { ParsedDocument } from '../../../src/parsing/model.js';
import { findAlignedTables } from '../../../src/parsing/pdf/alignedTables.js';
import type { PageText } from '../../../src/parsing/pdf/pageText.js';
import { createProfileBuilder } from '../../../src/parsing/pdf/profile.js';
import type { Line } from '../../../src/parsing/pdf/readingOrder.js';
import { buildRows, rowTextOf, type Segment } from '../../../src/parsing/pdf/rows.js';
import { titleKey } from '../../../src/parsing/pdf/runningTitles.js';
import type { TextRun } from '../../../src/parsing/pdf/textRun.js';
import { cellsRead, standsIn } from '../../../scripts/corpus/cellsVsPdftotext.js';

/** A run of `size`-point text whose glyphs are half an em wide. */
function run(text: string, x: number, y: number, size = 10): TextRun {
  return { text, x, y, width: text.length * size * 0.5, size, fontId: 'f1', rtl: false };
}

function page(number: number, runs: TextRun[]): PageText {
  const chars = runs.reduce((sum, item) => sum + item.text.replace(/\s+/g, '').length, 0);
  return { number, width: 600, height: 800, runs, rows: buildRows(runs), chars };
}

/** Body lines filling a page from `top` down, 14 pt apart, each worded differently (not by digits). */
function body(from: number, count: number, top = 100): TextRun[] {
  const word = (n: number): string => [...String(n)].map((digit) => 'abcdefghij'[Number(digit)]).join('');
  return Array.from({ length: count }, (_, index) =>
    run(
      `Body line ${word(from + index)} says something ordinary about building programs.`,
      72,
      top + 14 * index,
    ),
  );
}

function segment(text: string, x0: number, x1: number, y: number): Segment {
  const only = run(text, x0, y);
  return { x0, x1, y, size: 10, text, rtl: false, runs: [only], contentX0: x0 };
}

function line(y: number, cells: Array<[string, number, number]>): Line {
  const segments = cells.map(([text, x0, x1]) => segment(text, x0, x1, y));
  return {
    segments,
    x0: Math.min(...segments.map((item) => item.x0)),
    x1: Math.max(...segments.map((item) => item.x1)),
    y,
    size: 10,
    text: segments.map((item) => item.text).join(' '),
    rtl: false,
    contentX0: segments[0]?.x0 ?? 0,
  };
}

const unused = (): never => {
  throw new Error('not used for text-layer PDFs');
};
const services: ParseServices = {
  ocr: { recognize: unused, close: async () => undefined },
  describer: { describe: unused },
  summarizer: { summarize: unused },
};

const held = (file: string): Promise<ParsedDocument> => parseCorpusFile(file, services, HELD_OUT_CORPUS);

/** How often `wanted` occurs in the document's text, compared as the evaluation compares. */
function occurrences(
  document: ParsedDocument,
  wanted: string,
  options: { outsideHeadings?: boolean } = {},
): number {
  const blocks = options.outsideHeadings
    ? document.blocks.filter((block) => block.type !== 'heading')
    : document.blocks;
  return normalise(documentText(blocks)).split(normalise(wanted)).length - 1;
}

const headingTexts = (document: ParsedDocument): string[] =>
  document.blocks.flatMap((block) => (block.type === 'heading' ? [block.text] : []));

const tableCells = (document: ParsedDocument): string[][][] =>
  document.blocks.flatMap((block) => (block.type === 'table' ? [block.table.cells] : []));

describe('PDF running chapter headers and table cells on held-out manuals', function () {
  this.timeout(60_000);

  describe('running titles', () => {
    it('reduces a heading and the running header that repeats it to one key', () => {
      expect(titleKey('4.1.1. Building Libraries From Source Code or Object\nFiles')).to.equal(
        titleKey('Building Libraries From Source Code or Object Files'),
      );
      expect(titleKey('CHAPTER 3. A FITS PRIMER')).to.equal(titleKey('A FITS Primer'));
      expect(titleKey('Chapter 6: The R API')).to.equal('therapi');
      // Hyphenated at different places, the words still agree.
      expect(titleKey('6.1.3. Deciding If a File Has Changed Using Both MD Sig- natures')).to.equal(
        titleKey('Deciding If a File Has Changed Using Both MD Signa- tures'),
      );
    });

    it('drops a header naming the current section, with its wrapped second line, and keeps the heading', () => {
      const profile = createProfileBuilder();
      const pages = [
        page(1, [run('4.2. Linking with Libraries', 72, 90, 14), ...body(0, 40, 120)]),
        page(2, [
          run('GetBuildPath: Getting the Path From a Node or', 300, 40),
          run('String', 520, 52),
          ...body(100, 40),
        ]),
        page(3, [
          run('Linking with Libraries', 400, 40),
          ...body(200, 20),
          run('5.5. GetBuildPath: Getting the Path From a', 72, 420, 14),
          run('Node or String', 72, 438, 14),
          ...body(300, 20, 470),
        ]),
      ];
      for (const item of pages) profile.add(item);
      const kept = (item: PageText): string[] => {
        const running = profile.profile().runningRows(item.rows, item.number, item.height);
        return item.rows.filter((row) => !running.has(row)).map(rowTextOf);
      };
      expect(kept(pages[2] as PageText)).not.to.include('Linking with Libraries');
      expect(kept(pages[2] as PageText)).to.include('5.5. GetBuildPath: Getting the Path From a');
      expect(kept(pages[1] as PageText)).not.to.include('GetBuildPath: Getting the Path From a Node or');
      expect(kept(pages[1] as PageText)).not.to.include('String');
      expect(kept(pages[0] as PageText)).to.include('4.2. Linking with Libraries');
    });

    it('keeps a top line of body text that merely starts like no heading', () => {
      const profile = createProfileBuilder();
      const pages = [
        page(1, [run('Linking with Libraries', 72, 90, 14), ...body(0, 40, 120)]),
        page(2, [run('Linking happens after compiling', 72, 40), ...body(100, 40)]),
        page(3, [run('Linking with Libraries is covered next', 72, 40), ...body(200, 40)]),
      ];
      for (const item of pages) profile.add(item);
      for (const item of pages.slice(1)) {
        const running = profile.profile().runningRows(item.rows, item.number, item.height);
        expect([...running].map(rowTextOf)).to.deep.equal([]);
      }
    });

    it('drops a chapter label beside the page number even where no other page confirms it', () => {
      const profile = createProfileBuilder();
      const pages = [
        page(1, [run('135', 520, 40), ...body(0, 40, 100)]),
        page(2, [
          run('Chapter 6: The R API: entry points for C code', 72, 40),
          run('192', 520, 40),
          ...body(50, 40),
        ]),
      ];
      for (const item of pages) profile.add(item);
      const second = pages[1] as PageText;
      const running = profile.profile().runningRows(second.rows, 2, second.height);
      expect([...running].map(rowTextOf)).to.deep.equal([
        'Chapter 6: The R API: entry points for C code 192',
      ]);
    });
  });

  describe('column-aligned tables', () => {
    it('keeps rows whose first cells are empty in the table', () => {
      const tables = findAlignedTables([
        line(100, [
          ['Language', 72, 120],
          ['Maintainer', 200, 260],
          ['Status', 400, 430],
        ]),
        line(112, [
          ['Arabic', 72, 105],
          ['Moaz Reyad', 200, 255],
          ['1.4.6', 400, 425],
        ]),
        line(124, [['Muhammad Bashir Al-Noimi', 200, 330]]),
        line(136, [
          ['Wei Liu', 200, 240],
          ['1.9.4', 400, 425],
        ]),
        line(148, [
          ['Armenian', 72, 118],
          ['Armen Tangamyan', 200, 285],
          ['1.8.0', 400, 425],
        ]),
      ]);
      expect(tables).to.have.length(1);
      expect(tables[0]?.cells).to.deep.equal([
        ['Language', 'Maintainer', 'Status'],
        ['Arabic', 'Moaz Reyad', '1.4.6'],
        ['', 'Muhammad Bashir Al-Noimi', ''],
        ['', 'Wei Liu', '1.9.4'],
        ['Armenian', 'Armen Tangamyan', '1.8.0'],
      ]);
    });

    it('reads a cell that spans rows, alone on its line, as a row of the table', () => {
      const tables = findAlignedTables([
        line(100, [
          ['Column 1', 80, 121],
          ['Column 2', 167, 208],
          ['Column 3', 443, 484],
        ]),
        line(112, [
          ['cell row=1,col=2', 164, 229],
          ['cell row=1,col=3', 441, 505],
        ]),
        line(119, [['cell row=1+2,col=1', 77, 152]]),
        line(131, [
          ['cell row=3,col=1', 77, 142],
          ['cell row=3,col=2', 164, 229],
          ['cell row=3,col=3', 441, 505],
        ]),
      ]);
      expect(tables).to.have.length(1);
      expect(tables[0]?.cells).to.deep.equal([
        ['Column 1', 'Column 2', 'Column 3'],
        ['', 'cell row=1,col=2', 'cell row=1,col=3'],
        ['cell row=1+2,col=1', '', ''],
        ['cell row=3,col=1', 'cell row=3,col=2', 'cell row=3,col=3'],
      ]);
    });

    it('does not take the line after a table into it when it is set larger (a heading)', () => {
      const after = { ...line(125, [['Charts', 72, 110]]), size: 14 };
      const tables = findAlignedTables([
        line(100, [
          ['Month', 72, 110],
          ['Rainfall', 200, 250],
        ]),
        line(112, [
          ['July', 72, 95],
          ['41.2', 200, 220],
        ]),
        after,
      ]);
      expect(tables[0]?.end).to.equal(2);
    });
  });

  describe('the comparison with pdftotext -layout', () => {
    it('counts a cell only where it stands whole in one unit', () => {
      expect(standsIn('nbeta', 'non-central beta nbeta a, b, ncp')).to.equal(true);
      expect(standsIn('beta', 'nbeta')).to.equal(false);
      expect(
        cellsRead(['C type', 'int *', 'DOUBLE'], ['R storage mode   C type', 'logical  int *  INTEGER']),
      ).to.equal(2);
    });
  });

  describe('held-out documents (test/corpus/heldout)', () => {
    it('removes FOP section-title headers (scons) from the text, keeping the headings, dehyphenated', async () => {
      const scons = await held('pdf-scons-sections.pdf');
      for (const title of [
        'Linking with Libraries',
        'Explicitly Creating File and Directory Nodes',
        'GetBuildPath: Getting the Path From a Node or String',
        'Using Content Signatures to Decide if a File Has Changed',
        'Using Time Stamps to Decide If a File Has Changed',
      ])
        expect(occurrences(scons, title, { outsideHeadings: true }), title).to.equal(0);
      expect(headingTexts(scons)).to.include('4 Building and Linking with Libraries');
      expect(headingTexts(scons)).to.include(
        '6.1.3. Deciding If a File Has Changed Using Both MD Signatures and Time Stamps',
      );
      // Bold typewriter command lines in the examples are no headings.
      expect(headingTexts(scons).filter((text) => text.startsWith('%'))).to.deep.equal([]);
    });

    it('removes "CHAPTER n. TITLE" and "n.n. SECTION n" headers (cfitsio) and keeps the chapter titles', async () => {
      const cfitsio = await held('pdf-cfitsio-chapters.pdf');
      expect(occurrences(cfitsio, 'CHAPTER 4. PROGRAMMING GUIDELINES')).to.equal(0);
      expect(occurrences(cfitsio, '4.3. FUNCTION NAMES AND VARIABLE DATATYPES 19')).to.equal(0);
      expect(headingTexts(cfitsio)).to.include.members(['Programming Guidelines', '4.1 CFITSIO Definitions']);
      // The #define listings are program text; the suffix table typed under dashed rules is a table.
      const cells = tableCells(cfitsio).flat(2);
      expect(cells.filter((cell) => cell.includes('#define'))).to.deep.equal([]);
      expect(cells).to.include('_lnglng');
      expect(cells.some((cell) => cell.endsWith('8-byte LONGLONG integer (see note below)'))).to.equal(true);
    });

    it('keeps the maintainers under one language in one table per page (doxygen)', async () => {
      const doxygen = await held('pdf-doxygen-tables.pdf');
      const languages = tableCells(doxygen).find((cells) => cells[0]?.[0] === 'Language');
      expect(languages?.map((row) => row[0])).to.include.members([
        'Arabic',
        'Chinese Traditional',
        'Japanese',
      ]);
      expect(languages).to.deep.include(['', 'Muhammad Bashir Al-Noimi', 'mbnoimi at gmail dot com', '']);
      expect(tableCells(doxygen).flat(2)).to.include('cell row=1+2,col=1');
    });
  });
});
