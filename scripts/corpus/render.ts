/**
 * Makes the corpus documents that no package ships as such, from text that packages do ship:
 * scanned-looking page images (sharp renders the text as SVG at 150 DPI, then grey paper, noise and
 * a skew are added) and a workbook (exceljs). Run after scripts/corpus/assemble.sh:
 * `node --import tsx scripts/corpus/render.ts`. Deterministic: the noise comes from a seeded generator.
 * Each image's reference text (what OCR should read) is written beside the corpus as
 * `<id>.reference.txt`; origins go to manifest.tsv.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { releaseWorkbook } from './releaseTables.js';
import { parseHtmlDocument, toArray } from '../../src/parsing/text/htmlDom.js';
import sharp from 'sharp';
import { escapeXml, scanLook, wrap } from './scanLook.js';

const OUT = 'test/corpus/real/';
const DPI = 150;
const PAGE_WIDTH = Math.round(8.27 * DPI); // A4 width
const MARGIN = 110;

interface Scan {
  id: string;
  format: 'png' | 'jpg' | 'tiff';
  from: { id: string; note: string };
  /** Paragraphs, each drawn in one direction. */
  paragraphs: Array<{ text: string; rtl: boolean }>;
  points: number;
  skewDegrees: number;
  /** 0–255 grey of the paper. */
  paper: number;
  noise: number;
  seed: number;
}

function paragraphsOf(file: string, pattern: RegExp, take: number[]): string[] {
  const document = parseHtmlDocument(readFileSync(file, 'utf8'));
  const all = toArray(document.querySelectorAll('p, div.para'))
    .map((element) => (element.textContent ?? '').replace(/\s+/g, ' ').trim())
    .filter((text) => pattern.test(text) && text.length > 80);
  return take.map((index) => all[index] ?? '');
}

const arabic = /(?:[\u0600-\u06ff]+\s+){8}/;
const AR = 'eval/retrieval/corpus/ar/';
const socialContract = readFileSync(`${OUT}txt-social-contract.txt`, 'utf8')
  .split(/\n\s*\n/)
  .map((block) => block.replace(/\s+/g, ' ').trim())
  .filter((block) => block.length > 120)
  .slice(0, 2);

const SCANS: Scan[] = [
  {
    id: 'ocr-en-social-contract',
    format: 'png',
    from: { id: 'txt-social-contract', note: 'first three long paragraphs' },
    paragraphs: socialContract.map((text) => ({ text, rtl: false })),
    points: 11,
    skewDegrees: 1.2,
    paper: 236,
    noise: 28,
    seed: 1,
  },
  {
    id: 'ocr-en-handbook-apt-cache',
    format: 'jpg',
    from: { id: 'html-publican-handbook-en', note: 'paragraphs 1–2' },
    paragraphs: paragraphsOf(`${OUT}html-publican-handbook-en.html`, /\w{4}/, [0, 1]).map((text) => ({
      text,
      rtl: false,
    })),
    points: 10,
    skewDegrees: -1.6,
    paper: 228,
    noise: 24,
    seed: 2,
  },
  {
    id: 'ocr-en-faq-kernel',
    format: 'tiff',
    from: { id: 'html-docbook-faq-kernel', note: 'paragraphs 1–2' },
    paragraphs: paragraphsOf(`${OUT}html-docbook-faq-kernel.html`, /\w{4}/, [0, 1]).map((text) => ({
      text,
      rtl: false,
    })),
    points: 11,
    skewDegrees: 0.8,
    paper: 245,
    noise: 16,
    seed: 3,
  },
  {
    id: 'ocr-ar-computer-layers',
    format: 'png',
    from: { id: 'debian-handbook ar-MA sect.computer-layers.html', note: 'paragraphs 1–2' },
    paragraphs: paragraphsOf(`${AR}sect.computer-layers.html`, arabic, [0, 1]).map((text) => ({
      text,
      rtl: true,
    })),
    points: 12,
    skewDegrees: 1.4,
    paper: 232,
    noise: 26,
    seed: 4,
  },
  {
    id: 'ocr-ar-small-quotas',
    format: 'png',
    from: { id: 'debian-handbook ar-MA sect.quotas.html', note: 'paragraphs 1–2, small type' },
    paragraphs: paragraphsOf(`${AR}sect.quotas.html`, arabic, [0, 1]).map((text) => ({ text, rtl: true })),
    points: 8,
    skewDegrees: -1,
    paper: 225,
    noise: 22,
    seed: 5,
  },
  {
    id: 'ocr-ar-backup',
    format: 'jpg',
    from: { id: 'debian-handbook ar-MA sect.backup.html', note: 'paragraphs 1–2' },
    paragraphs: paragraphsOf(`${AR}sect.backup.html`, arabic, [0, 1]).map((text) => ({ text, rtl: true })),
    points: 12,
    skewDegrees: -2,
    paper: 238,
    noise: 20,
    seed: 6,
  },
  {
    id: 'ocr-ar-skewed-hotplug',
    format: 'png',
    from: { id: 'debian-handbook ar-MA sect.hotplug.html', note: 'paragraph 1, skewed 5°' },
    paragraphs: paragraphsOf(`${AR}sect.hotplug.html`, arabic, [0]).map((text) => ({ text, rtl: true })),
    points: 12,
    skewDegrees: 5,
    paper: 234,
    noise: 22,
    seed: 8,
  },
  {
    id: 'ocr-mixed-anacron',
    format: 'png',
    from: {
      id: 'debian-handbook en-US and ar-MA sect.asynchronous-task-scheduling-anacron.html',
      note: 'title in English, first paragraph in Arabic',
    },
    paragraphs: [
      { text: 'Asynchronous Task Scheduling: anacron', rtl: false },
      ...paragraphsOf(`${AR}sect.asynchronous-task-scheduling-anacron.html`, arabic, [0]).map((text) => ({
        text,
        rtl: true,
      })),
    ],
    points: 12,
    skewDegrees: 1,
    paper: 235,
    noise: 22,
    seed: 7,
  },
];

/** The paragraph's leading sentences, at most `max` characters (at least one sentence). */
function sentences(text: string, max: number): string {
  const parts = text.match(/[^.!?]+[.!?]+(\s+|$)|[^.!?]+$/g) ?? [text];
  let out = '';
  for (const part of parts) {
    if (out && out.length + part.length > max) break;
    out += part;
  }
  return out.trim();
}

async function renderScan(scan: Scan): Promise<string> {
  const px = (scan.points / 72) * DPI;
  const lineHeight = Math.round(px * 1.45);
  const usable = PAGE_WIDTH - 2 * MARGIN;
  const rows: Array<{ text: string; rtl: boolean } | null> = [];
  const reference: string[] = [];
  for (const paragraph of scan.paragraphs.map((p) => ({ ...p, text: sentences(p.text, 700) }))) {
    // Wrapped by an estimated glyph width: DejaVu Sans averages ~0.55 em Latin, ~0.45 em Arabic.
    const perLine = Math.floor(usable / (px * (paragraph.rtl ? 0.47 : 0.56)));
    const lines = wrap(paragraph.text, perLine);
    for (const line of lines) rows.push({ text: line, rtl: paragraph.rtl });
    rows.push(null);
    reference.push(lines.join('\n'));
  }
  const height = MARGIN * 2 + rows.length * lineHeight;
  const texts = rows
    .map((row, i) => {
      if (!row) return '';
      const y = MARGIN + (i + 1) * lineHeight;
      const x = row.rtl ? PAGE_WIDTH - MARGIN : MARGIN;
      const anchor = 'start'; // in right-to-left text, start is the right edge
      const direction = row.rtl ? ' direction="rtl"' : '';
      return `<text x="${x}" y="${y}" text-anchor="${anchor}"${direction}>${escapeXml(row.text)}</text>`;
    })
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${PAGE_WIDTH}" height="${height}">
<rect width="100%" height="100%" fill="white"/>
<g font-family="DejaVu Sans" font-size="${px.toFixed(1)}" fill="#202020">${texts}</g></svg>`;
  const { data, info } = await sharp(Buffer.from(svg), { density: 72 })
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const pixels = scanLook(data, scan);
  let image = sharp(pixels, { raw: { width: info.width, height: info.height, channels: 1 } })
    .rotate(scan.skewDegrees, { background: { r: scan.paper, g: scan.paper, b: scan.paper } })
    .withMetadata({ density: DPI });
  image =
    scan.format === 'png'
      ? image.png({ palette: true, colours: 16, compressionLevel: 9 })
      : scan.format === 'jpg'
        ? image.jpeg({ quality: 72 })
        : image.tiff({ compression: 'jpeg', quality: 75 });
  const file = `${scan.id}.${scan.format}`;
  await image.toFile(`${OUT}${file}`);
  writeFileSync(`${OUT}${scan.id}.reference.txt`, `${reference.join('\n\n')}\n`);
  return file;
}

async function workbook(): Promise<string> {
  // A formatted but empty row below the data, as spreadsheets often carry.
  const book = releaseWorkbook(OUT, { titleRow: false, emptyCell: { rowsBelow: 5, column: 1 } });
  const file = 'xlsx-distro-releases.xlsx';
  await book.xlsx.writeFile(`${OUT}${file}`);
  return file;
}

for (const scan of SCANS) {
  const file = await renderScan(scan);
  appendFileSync(
    `${OUT}manifest.tsv`,
    `${scan.id}\t${file}\trendered:${scan.from.id}\t-\t${scan.from.note}\tas its source\t${scan.points} pt at ${DPI} DPI, skew ${scan.skewDegrees}°, noise ${scan.noise}\n`,
  );
}
const xlsx = await workbook();
appendFileSync(
  `${OUT}manifest.tsv`,
  `xlsx-distro-releases\t${xlsx}\trendered:csv-debian-releases+csv-ubuntu-releases\t-\tone sheet per CSV\tISC\texceljs, a formatted empty row below each table\n`,
);
