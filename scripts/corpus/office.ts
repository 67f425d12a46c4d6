/**
 * Office documents of the real-document corpus (test/corpus/real) written by LibreOffice from real
 * text: the Debian Social Contract (txt-social-contract.txt) as a flat ODT with Title and Subtitle
 * paragraphs, headings, a running header and footer, a footnote, an endnote and a text frame (each
 * holding a sentence of the same document), saved by LibreOffice as .odt and .docx; and the two release CSVs as a workbook (exceljs: a merged title
 * row, a formatted-but-empty row far below the data) saved by LibreOffice as .ods and .xlsx.
 * Also copies the Word files the registry packages mammoth (npm, this project's dependency) and
 * python-docx (PyPI sdist, `pip download`) ship for their own tests, and appends every row to
 * manifest.tsv. Needs LibreOffice (`soffice`) and pip, which only this step uses — never the tests.
 * Run after scripts/corpus/render.ts: `node --import tsx scripts/corpus/office.ts`.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { releaseWorkbook } from './releaseTables.js';

const OUT = new URL('../../test/corpus/real/', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'corpus-office-'));

const escape = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The Social Contract's numbered items: [title, paragraph] in order. */
function contractItems(): Array<[string, string]> {
  const text = readFileSync(`${OUT}txt-social-contract.txt`, 'utf8');
  const start = text.indexOf('"Social Contract" with the Free Software Community');
  const part = text.slice(start, text.indexOf('_____', start));
  const items: Array<[string, string]> = [];
  for (const match of part.matchAll(/^ {4}\d\. (.+)\n((?: {7}.+\n?)+)/gm)) {
    items.push([match[1]!.trim(), match[2]!.replace(/\s+/g, ' ').trim()]);
  }
  return items;
}

function socialContractFodt(): string {
  const items = contractItems();
  const paragraph = (style: string, text: string): string =>
    `<text:p text:style-name="${style}">${text}</text:p>`;
  const heading = (level: number, text: string, pageBreak = false): string =>
    `<text:h text:style-name="${pageBreak ? 'HeadingBreak' : `Heading_20_${level}`}" text:outline-level="${level}">${escape(text)}</text:h>`;
  const note = (cls: 'footnote' | 'endnote', id: string, text: string): string =>
    `<text:note text:id="${id}" text:note-class="${cls}"><text:note-citation>1</text:note-citation><text:note-body><text:p text:style-name="Standard">${escape(text)}</text:p></text:note-body></text:note>`;
  const body = [
    paragraph('Title', 'Debian Social Contract'),
    paragraph('Subtitle', 'Version 1.2 ratified on October 1st, 2022.'),
    paragraph(
      'Standard',
      `Debian, the producers of the Debian system, have created the Debian Social Contract.${note('footnote', 'ftn1', 'Supersedes Version 1.1 ratified on April 26th, 2004, and Version 1.0 ratified on July 5, 1997.')} The Debian Free Software Guidelines (DFSG) part of the contract, initially designed as a set of commitments that we agree to abide by, has been adopted by the free software community as the basis of the Open Source Definition.${note('endnote', 'edn1', 'The concept of stating our "social contract with the free software community" was suggested by Ean Schuessler.')}`,
    ),
    `<text:p text:style-name="Standard"><draw:frame draw:name="Box" text:anchor-type="paragraph" svg:width="8cm" draw:z-index="0"><draw:text-box><text:p text:style-name="Standard">Other organizations may derive from and build on this document. Please give credit to the Debian project if you do.</text:p></draw:text-box></draw:frame></text:p>`,
    heading(1, '"Social Contract" with the Free Software Community'),
    ...items.flatMap(([title, text], index) => [
      heading(2, title, index > 0),
      paragraph('Standard', escape(text)),
    ]),
  ].join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:meta><dc:title>Debian Social Contract</dc:title></office:meta>
<office:styles>
<style:style style:name="Standard" style:family="paragraph" style:class="text"/>
<style:style style:name="Heading" style:family="paragraph" style:parent-style-name="Standard"><style:text-properties fo:font-weight="bold"/></style:style>
<style:style style:name="Title" style:family="paragraph" style:parent-style-name="Heading" style:class="chapter"><style:text-properties fo:font-size="28pt"/></style:style>
<style:style style:name="Subtitle" style:family="paragraph" style:parent-style-name="Heading" style:class="chapter"><style:text-properties fo:font-size="18pt"/></style:style>
<style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="1"/>
<style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph" style:parent-style-name="Heading" style:default-outline-level="2"/>
<style:style style:name="Header" style:family="paragraph" style:parent-style-name="Standard"/>
<style:style style:name="Footer" style:family="paragraph" style:parent-style-name="Standard"/>
</office:styles>
<office:automatic-styles>
<style:style style:name="HeadingBreak" style:family="paragraph" style:parent-style-name="Heading_20_2"><style:paragraph-properties fo:break-before="page"/></style:style>
<style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin="2cm"/><style:header-style/><style:footer-style/></style:page-layout>
</office:automatic-styles>
<office:master-styles>
<style:master-page style:name="Standard" style:page-layout-name="pm1">
<style:header><text:p text:style-name="Header">Debian Social Contract — Version 1.2</text:p></style:header>
<style:footer><text:p text:style-name="Footer">Page <text:page-number text:select-page="current">1</text:page-number> — debian.org/social_contract</text:p></style:footer>
</style:master-page>
</office:master-styles>
<office:body><office:text>
${body}
</office:text></office:body>
</office:document>
`;
}

async function releasesWorkbook(): Promise<string> {
  // A title row merged across the table's width, as hand-made sheets often have, and a formatted
  // but empty cell far below the data.
  const book = releaseWorkbook(OUT, { titleRow: true, emptyCell: { rowsBelow: 40, column: 3 } });
  const file = join(work, 'distro-releases-merged.xlsx');
  await book.xlsx.writeFile(file);
  return file;
}

function convert(input: string, to: string): string {
  const result = spawnSync('soffice', ['--headless', '--convert-to', to, '--outdir', work, input], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`soffice failed: ${result.stderr}`);
  return join(work, input.replace(/^.*\//, '').replace(/\.[^.]+$/, `.${to.replace(/:.*/, '')}`));
}

const fodt = join(work, 'social-contract.fodt');
writeFileSync(fodt, socialContractFodt());
copyFileSync(convert(fodt, 'odt'), `${OUT}odt-social-contract.odt`);
copyFileSync(convert(fodt, 'docx:MS Word 2007 XML'), `${OUT}docx-libreoffice-social-contract.docx`);
const xlsx = await releasesWorkbook();
copyFileSync(convert(xlsx, 'ods'), `${OUT}ods-distro-releases.ods`);
// Saved again by LibreOffice (its own XLSX writer, not exceljs's).
const again = join(work, 'again');
spawnSync('mkdir', ['-p', again]);
const resaved = spawnSync(
  'soffice',
  ['--headless', '--convert-to', 'xlsx:Calc MS Excel 2007 XML', '--outdir', again, xlsx],
  { encoding: 'utf8' },
);
if (resaved.status !== 0) throw new Error(`soffice failed: ${resaved.stderr}`);
copyFileSync(join(again, 'distro-releases-merged.xlsx'), `${OUT}xlsx-libreoffice-distro-releases.xlsx`);

const run = (command: string, args: string[]): void => {
  const result = spawnSync(command, args, { cwd: work, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr}`);
};
const MAMMOTH = new URL('../../node_modules/mammoth/', import.meta.url).pathname;
const mammothVersion = (JSON.parse(readFileSync(`${MAMMOTH}package.json`, 'utf8')) as { version: string })
  .version;
const PYTHON_DOCX = '1.1.2';
run('pip', ['download', '--no-deps', '--no-binary', ':all:', `python-docx==${PYTHON_DOCX}`]);
run('tar', ['xzf', `python_docx-${PYTHON_DOCX}.tar.gz`]);
const word = ' (Microsoft Word)';
const copied: Array<[string, string, string, string, string, string]> = [
  [
    'docx-mammoth-footnotes',
    'npm:mammoth',
    mammothVersion,
    'test/test-data/footnotes.docx',
    'BSD-2-Clause',
    word,
  ],
  [
    'docx-mammoth-endnotes',
    'npm:mammoth',
    mammothVersion,
    'test/test-data/endnotes.docx',
    'BSD-2-Clause',
    '',
  ],
  [
    'docx-mammoth-text-box',
    'npm:mammoth',
    mammothVersion,
    'test/test-data/text-box.docx',
    'BSD-2-Clause',
    word,
  ],
  [
    'docx-python-docx-first-page-header',
    'pypi:python-docx',
    PYTHON_DOCX,
    'features/steps/test_files/sct-first-page-hdrftr.docx',
    'MIT',
    `${word.slice(0, -1)}; sdist via pip download --no-binary :all:)`,
  ],
  [
    'docx-python-docx-odd-even-headers',
    'pypi:python-docx',
    PYTHON_DOCX,
    'features/steps/test_files/doc-odd-even-hdrs.docx',
    'MIT',
    `${word.slice(0, -1)}; sdist via pip download --no-binary :all:)`,
  ],
];
const rows: string[] = [];
for (const [id, source, version, path, licence, note] of copied) {
  const root = source === 'npm:mammoth' ? MAMMOTH : join(work, `python_docx-${PYTHON_DOCX}/`);
  copyFileSync(join(root, path), `${OUT}${id}.docx`);
  rows.push([id, `${id}.docx`, source, version, path, licence, `whole${note}`].join('\t'));
}
const LO = 'LibreOffice 7.4.7.2';
rows.push(
  `odt-social-contract\todt-social-contract.odt\trendered:txt-social-contract\t-\ttitle, version, introduction, the five Social Contract items, closing sentences as notes and a text frame\tas its source\tscripts/corpus/office.ts: flat ODT saved by ${LO} as ODT`,
  `docx-libreoffice-social-contract\tdocx-libreoffice-social-contract.docx\trendered:txt-social-contract\t-\tas odt-social-contract\tas its source\tscripts/corpus/office.ts: the same flat ODT saved by ${LO} as DOCX`,
  `ods-distro-releases\tods-distro-releases.ods\trendered:csv-debian-releases+csv-ubuntu-releases\t-\tone sheet per CSV\tISC\tscripts/corpus/office.ts: exceljs workbook (title row merged A1:D1, a formatted empty cell 40 rows below) saved by ${LO} as ODS`,
  `xlsx-libreoffice-distro-releases\txlsx-libreoffice-distro-releases.xlsx\trendered:csv-debian-releases+csv-ubuntu-releases\t-\tone sheet per CSV\tISC\tas ods-distro-releases, saved by ${LO} as XLSX (stale dimension A1:H63)`,
);
appendFileSync(`${OUT}manifest.tsv`, `${rows.join('\n')}\n`);
console.log(`written from ${work}`);
