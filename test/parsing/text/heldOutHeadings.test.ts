import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { parseHtml, parseMarkdown } from '../../../src/parsing/text/index.js';
import { bytesOf, headings, paragraphs, textContext } from './support.js';

const HELD_OUT = new URL('../../corpus/heldout/', import.meta.url);

function heldOut(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(name, HELD_OUT)));
}

/** A page as a documentation generator writes it: `generator` names it in a meta element. */
function manualPage(generator: string, body: string): Uint8Array {
  return bytesOf(
    `<!DOCTYPE html><html><head><title>Page</title><meta name="generator" content="${generator}"></head>` +
      `<body>${body}</body></html>`,
  );
}

const parsePage = (bytes: Uint8Array) => parseHtml(bytes, textContext('page.html'));

describe('headings of generated manuals and READMEs beyond the real corpus', () => {
  describe('DocBook', () => {
    it('reads an admonition title as the label of its box, not as a section that cuts the one it stands in', async () => {
      const document = await parsePage(
        manualPage(
          'DocBook XSL Stylesheets V1.79.1',
          `<div class="sect1"><h2 class="title">4.1. Lexical Structure</h2><p>SQL input consists of commands.</p>
          <div class="sect2"><h3 class="title">4.1.2. Constants</h3><p>There are three kinds.</p>
          <div class="caution"><h3 class="title">Caution</h3><p>Backslashes may be escapes.</p></div>
          <p>Constants of other types follow.</p></div></div>`,
        ),
      );
      expect(headings(document)).to.deep.equal([
        [2, '4.1. Lexical Structure'],
        [3, '4.1.2. Constants'],
      ]);
      expect(paragraphs(document)).to.include.members(['Caution', 'Backslashes may be escapes.']);
    });

    it('puts a reference page title above the sections of the page, which share its tag', async () => {
      const document = await parsePage(
        manualPage(
          'DocBook XSL Stylesheets Vsnapshot',
          `<div class="refentry"><div class="refnamediv"><h2><span class="refentrytitle">vacuumdb</span></h2>
          <p>vacuumdb — garbage-collect a database</p></div>
          <div class="refsynopsisdiv"><h2>Synopsis</h2><p>vacuumdb [option...]</p></div>
          <div class="refsect1"><h2>Description</h2><p>vacuumdb cleans a database.</p></div></div>`,
        ),
      );
      expect(headings(document)).to.deep.equal([
        [1, 'vacuumdb'],
        [2, 'Synopsis'],
        [2, 'Description'],
      ]);
    });

    it("reads a title page's author as a byline, not a heading", async () => {
      const document = await parsePage(
        manualPage(
          'DocBook XSL Stylesheets V1.61.2',
          `<div class="titlepage"><h1 class="title">Libxml Tutorial</h1>
          <div class="author"><h3 class="author">John Fleck</h3></div></div>
          <div class="sect1"><h2 class="title">Introduction</h2><p>Libxml is a C library.</p></div>`,
        ),
      );
      expect(headings(document)).to.deep.equal([
        [1, 'Libxml Tutorial'],
        [2, 'Introduction'],
      ]);
      expect(paragraphs(document)).to.include('John Fleck');
    });

    it('keeps the headings of a page no generator claims as they are written', async () => {
      const document = await parsePage(
        bytesOf(
          `<html><body><main><h1>Safety</h1><div class="note"><h3 class="title">Note</h3>` +
            `<p>${'Wear gloves when handling the samples. '.repeat(8)}</p></div></main></body></html>`,
        ),
      );
      expect(headings(document).map(([, text]) => text)).to.include('Note');
    });
  });

  describe('section titles set as bold paragraphs (SiSU, the Debian live manual)', () => {
    const chapter = (sections: string): Uint8Array =>
      manualPage(
        'SiSU 7.2.1_pre_rel',
        `<div class="content0"><h1 class="tiny">Live Systems Manual</h1></div>
        <div class="content0"><h1 class="tiny">Reporting bugs</h1></div>
        <div class="content0"><div class="substance"><label class="ocn"><a href="#692" class="lnkocn">692</a></label>
        <h1 class="norm" id="692">14. Reporting bugs</h1></div>
        <div class="substance"><label class="ocn"><a href="#693" class="lnkocn">693</a></label>
        <p class="i0" id="693">Live systems are far from being perfect.</p></div>${sections}</div>`,
      );

    it('reads a bold paragraph numbered under a heading of the page as a section title, at its number depth', async () => {
      const document = await parsePage(
        chapter(
          `<p class="bold"><a name="h14.6"></a>14.6 Use the correct package</p><p>Pick the package.</p>
          <p class="bold"><a name="h14.6.1"></a>14.6.1 At build time</p><p>While bootstrapping.</p>
          <p><b>14.7 Do the research</b></p><p>Search first.</p>`,
        ),
      );
      expect(headings(document)).to.deep.equal([
        [1, '14. Reporting bugs'],
        [2, '14.6 Use the correct package'],
        [3, '14.6.1 At build time'],
        [2, '14.7 Do the research'],
      ]);
    });

    it('reads the numbering whatever script the titles are in and whatever follows the number', async () => {
      const document = await parsePage(
        manualPage(
          'SiSU 7.2.1_pre_rel',
          `<h1 class="tiny">Live システムマニュアル</h1><h1 class="tiny">実例</h1><h1 class="norm">18. 実例</h1>
          <p>この章では例を示します。</p>
          <p class="bold">18.6 128MB USB メモリ向けの基本イメージ</p><p>小さなイメージ。</p>
          <p class="bold">18.6.1 「スナップショット」から</p><p>最新版。</p>`,
        ),
      );
      expect(headings(document)).to.deep.equal([
        [1, '18. 実例'],
        [2, '18.6 128MB USB メモリ向けの基本イメージ'],
        [3, '18.6.1 「スナップショット」から'],
      ]);
    });

    it('leaves a bold numbered line that continues no heading of the page as a paragraph', async () => {
      const document = await parsePage(chapter(`<p class="bold">2.5 mm bolts hold the case shut</p>`));
      expect(headings(document)).to.deep.equal([[1, '14. Reporting bugs']]);
      expect(paragraphs(document)).to.include('2.5 mm bolts hold the case shut');
    });

    it("drops the book's and the chapter's running titles above the numbered chapter title, and the paragraph numbers", async () => {
      const document = await parsePage(chapter(''));
      expect(headings(document)).to.deep.equal([[1, '14. Reporting bugs']]);
      expect(paragraphs(document)).to.deep.equal(['Live systems are far from being perfect.']);
    });

    it('keeps a book title over a chapter title of a lower tag', async () => {
      const document = await parsePage(
        manualPage(
          'DocBook XSL Stylesheets V1.79.1',
          '<h1>GNU Diffutils</h1><h2>1 Overview</h2><p>Text.</p>',
        ),
      );
      expect(headings(document).map(([, text]) => text)).to.deep.equal(['GNU Diffutils', '1 Overview']);
    });
  });

  describe('navigation bands', () => {
    it('drops a table of nothing but links that steps to the previous or next page', async () => {
      const document = await parsePage(
        bytesOf(
          `<html><body><table summary="segment navigation"><tr><td><a href="/">Live manual</a></td>
          <td><a href="a.html"><img src="prev.png" alt="&lt;&lt;&nbsp;previous"></a></td>
          <td><a href="toc.html"><img src="up.png" alt="toc"></a></td>
          <td><a href="c.html"><img src="next.png" alt="next&nbsp;&gt;&gt;"></a></td></tr></table>
          <h1>Hooks</h1><p>${'Hooks allow commands to be run in the chroot. '.repeat(6)}</p></body></html>`,
        ),
      );
      const text = JSON.stringify(document.blocks);
      expect(text).not.to.include('previous');
      expect(text).not.to.include('Live manual');
      expect(text).to.include('Hooks allow commands');
    });

    it('keeps a table of links that steps nowhere, and one with text beside its links', async () => {
      const document = await parsePage(
        manualPage(
          'DocBook XSL Stylesheets V1.79.1',
          `<h1>Downloads</h1><table><tr><td><a href="a.tgz">Source tarball</a></td><td><a href="b.deb">Debian package</a></td></tr></table>
          <table><tr><td><a href="n.html">Next</a></td><td>the release after this one</td></tr><tr><td><a href="p.html">Previous</a></td><td>the one before</td></tr></table>`,
        ),
      );
      const text = JSON.stringify(document.blocks);
      expect(text).to.include('Source tarball');
      expect(text).to.include('the release after this one');
    });
  });

  describe('held-out documents', () => {
    it('reads the live manual chapter "Customizing contents" with its numbered sections and nothing of its chrome', async () => {
      const document = await parseHtml(
        heldOut('html-live-manual-customizing-contents.html'),
        textContext('customizing-contents.en.html'),
      );
      expect(headings(document)).to.deep.equal([
        [1, '9. Customizing contents'],
        [2, '9.1 Includes'],
        [3, '9.1.1 Live/chroot local includes'],
        [3, '9.1.2 Binary local includes'],
        [2, '9.2 Hooks'],
        [3, '9.2.1 Chroot local hooks'],
        [3, '9.2.2 Binary local hooks'],
        [3, '9.2.3 Boot-time hooks'],
        [2, '9.3 Preseeding Debconf questions'],
      ]);
      expect(paragraphs(document).some((text) => /^\d+$/.test(text))).to.equal(false);
    });

    it('reads the PostgreSQL reference page for vacuumdb without its Note and Tip boxes as sections', async () => {
      const document = await parseHtml(
        heldOut('html-docbook-pgsql-vacuumdb.html'),
        textContext('app-vacuumdb.html'),
      );
      expect(headings(document)).to.deep.equal([
        [1, 'vacuumdb'],
        [2, 'Synopsis'],
        [2, 'Description'],
        [2, 'Options'],
        [2, 'Environment'],
        [2, 'Diagnostics'],
        [2, 'Notes'],
        [2, 'Examples'],
        [2, 'See Also'],
      ]);
    });
  });

  describe('README headings written as HTML or setext', () => {
    it('titles a README with a centred HTML h1 under a logo banner, then reads its ATX sections', async () => {
      const document = await parseMarkdown(heldOut('md-yargs-readme.md'), textContext('README.md'));
      expect(headings(document).slice(0, 4)).to.deep.equal([
        [1, 'Yargs'],
        [2, 'Description'],
        [2, 'Installation'],
        [2, 'Usage'],
      ]);
    });

    it('finds an HTML h1 inside a centred div broken by blank lines and Markdown badges', async () => {
      const document = await parseMarkdown(heldOut('md-webpack-readme.md'), textContext('README.md'));
      expect(headings(document).slice(0, 3)).to.deep.equal([
        [1, 'webpack'],
        [2, 'Table of Contents'],
        [2, 'Install'],
      ]);
    });

    it('reads setext titles as levels 1 and 2 beside ATX headings', async () => {
      const document = await parseMarkdown(
        bytesOf(
          'Tool\n====\n\nIntro text.\n\nUsage\n-----\nNo blank line before this text.\n\n### Options\n\nMore.\n',
        ),
        textContext('README.md'),
      );
      expect(headings(document)).to.deep.equal([
        [1, 'Tool'],
        [2, 'Usage'],
        [3, 'Options'],
      ]);
      expect(paragraphs(document)).to.include('No blank line before this text.');
    });
  });
});
