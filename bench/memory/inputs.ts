/**
 * The four inputs of issue 9's memory goal, generated with nothing but Node (no LibreOffice, no
 * downloads) and cached in the temp folder: a ~47 MB DOCX compressing ~5.7:1, a 50 MB CSV on one
 * line, a ~50 MB XLSX, and a 200-page PDF. A seeded generator makes every run use the same bytes.
 */
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { seeded, vocabulary } from './words.js';
import { writePdf } from './pdfInput.js';
import { writeZipFile, type StreamedEntry } from './zipStream.js';

const MB = 1024 * 1024;
const cacheDir = join(tmpdir(), 'archivist-bench-memory');

export interface BenchInput {
  name: string;
  fileName: string;
  path: string;
  bytes: number;
}

/** Yields generated pieces until `target` bytes (UTF-8, ASCII here) have been produced. */
function* until(target: number, next: () => string): Generator<string> {
  let produced = 0;
  let batch = '';
  while (produced < target) {
    const piece = next();
    produced += piece.length;
    batch += piece;
    if (batch.length >= 256 * 1024) {
      yield batch;
      batch = '';
    }
  }
  if (batch) yield batch;
}

/** Uncompressed bytes needed for `compressedTarget` compressed bytes, judged on a 4 MB sample. */
function uncompressedFor(compressedTarget: number, sample: () => string): number {
  let text = '';
  while (text.length < 4 * MB) text += sample();
  return Math.round(compressedTarget * (text.length / deflateRawSync(Buffer.from(text)).length));
}

const CONTENT_TYPES = (overrides: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides}</Types>`;
const ROOT_RELS = (target: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${target}"/></Relationships>`;
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';

/**
 * Paragraphs as Word writes them, a heading every 40: markup-heavy (run properties, spacing; ~5.7:1
 * compressed) or plain (one run each; more text per compressed byte, as a text-heavy report).
 */
function docxParagraphs(seed = 47, markup: 'heavy' | 'plain' = 'heavy'): () => string {
  const random = seeded(seed);
  const words = vocabulary(random, 5_000);
  let count = 0;
  return () => {
    count += 1;
    if (count % 40 === 1) {
      return `<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Chapter ${Math.ceil(count / 40)}</w:t></w:r></w:p>`;
    }
    const sentence = () =>
      Array.from({ length: 19 }, () => words[Math.floor(random() * words.length)]).join(' ');
    if (markup === 'plain') {
      const text = Array.from({ length: 2 + Math.floor(random() * 6) }, sentence).join('. ');
      return `<w:p><w:r><w:t xml:space="preserve">${text}.</w:t></w:r></w:p>`;
    }
    let paragraph =
      '<w:p><w:pPr><w:spacing w:after="120" w:line="276" w:lineRule="auto"/><w:jc w:val="both"/></w:pPr>';
    const runs = 2 + Math.floor(random() * 6);
    for (let run = 0; run < runs; run += 1) {
      const bold = random() < 0.2 ? '<w:b/>' : '';
      paragraph += `<w:r><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/><w:sz w:val="22"/>${bold}</w:rPr><w:t xml:space="preserve">${sentence()} </w:t></w:r>`;
    }
    return `${paragraph}</w:p>`;
  };
}

/**
 * A DOCX of about `compressed` bytes (one long document.xml); another `seed` gives other words
 * (another document, not a duplicate).
 */
export async function writeDocx(
  path: string,
  compressed: number,
  options: { seed?: number; markup?: 'heavy' | 'plain' } = {},
): Promise<void> {
  const paragraphs = () => docxParagraphs(options.seed, options.markup);
  const target = uncompressedFor(compressed, paragraphs());
  const styles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="${W}"><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style></w:styles>`;
  const entries: StreamedEntry[] = [
    {
      name: '[Content_Types].xml',
      chunks: () => [
        CONTENT_TYPES(
          '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>',
        ),
      ],
    },
    { name: '_rels/.rels', chunks: () => [ROOT_RELS('word/document.xml')] },
    {
      name: 'word/_rels/document.xml.rels',
      chunks: () => [
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`,
      ],
    },
    { name: 'word/styles.xml', chunks: () => [styles] },
    {
      name: 'word/document.xml',
      chunks: function* () {
        yield `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>`;
        yield* until(target, paragraphs());
        yield '</w:body></w:document>';
      },
    },
  ];
  await writeZipFile(path, entries);
}

/** 10 columns a report export has: ids, dates, shared-string labels, prices, counts, flags. */
function xlsxRows(): () => string {
  const random = seeded(50);
  let row = 0;
  return () => {
    row += 1;
    const r = row;
    const cells = [
      `<c r="A${r}"><v>${r}</v></c>`,
      `<c r="B${r}" s="1"><v>${45_000 + Math.floor(random() * 1_000)}</v></c>`,
      `<c r="C${r}" t="s"><v>${Math.floor(random() * 7)}</v></c>`,
      `<c r="D${r}" t="s"><v>${7 + Math.floor(random() * 2_000)}</v></c>`,
      `<c r="E${r}"><v>${(random() * 10_000).toFixed(2)}</v></c>`,
      `<c r="F${r}"><v>${Math.floor(random() * 500)}</v></c>`,
      `<c r="G${r}"><v>${(random() * 100).toFixed(4)}</v></c>`,
      `<c r="H${r}" t="b"><v>${random() < 0.5 ? 1 : 0}</v></c>`,
      `<c r="I${r}"><v>${Math.floor(random() * 1e9)}</v></c>`,
      `<c r="J${r}" t="s"><v>${7 + Math.floor(random() * 2_000)}</v></c>`,
    ];
    return `<row r="${r}">${cells.join('')}</row>`;
  };
}

/** An XLSX of about `compressed` bytes: one sheet of 10 columns. */
export async function writeXlsx(path: string, compressed: number): Promise<void> {
  const target = uncompressedFor(compressed, xlsxRows());
  const random = seeded(51);
  const words = vocabulary(random, 3_000);
  const strings = [
    ...['North', 'South', 'East', 'West', 'Coast', 'Valley', 'Hills'],
    ...Array.from({ length: 2_000 }, (_, i) => `${words[i]} ${words[i + 1000]} ${i}`),
  ];
  const rel = (id: string, type: string, target: string) =>
    `<Relationship Id="${id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${type}" Target="${target}"/>`;
  const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  const entries: StreamedEntry[] = [
    {
      name: '[Content_Types].xml',
      chunks: () => [
        CONTENT_TYPES(
          '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>',
        ),
      ],
    },
    { name: '_rels/.rels', chunks: () => [ROOT_RELS('xl/workbook.xml')] },
    {
      name: 'xl/workbook.xml',
      chunks: () => [
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="${main}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Readings" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ],
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      chunks: () => [
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rel('rId1', 'worksheet', 'worksheets/sheet1.xml')}${rel('rId2', 'sharedStrings', 'sharedStrings.xml')}${rel('rId3', 'styles', 'styles.xml')}</Relationships>`,
      ],
    },
    {
      name: 'xl/styles.xml',
      chunks: () => [
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><styleSheet xmlns="${main}"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14" applyNumberFormat="1"/></cellXfs></styleSheet>`,
      ],
    },
    {
      name: 'xl/sharedStrings.xml',
      chunks: () => [
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="${main}" count="${strings.length}" uniqueCount="${strings.length}">${strings.map((text) => `<si><t>${text}</t></si>`).join('')}</sst>`,
      ],
    },
    {
      name: 'xl/worksheets/sheet1.xml',
      chunks: function* () {
        yield `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="${main}"><sheetData>`;
        yield* until(target, xlsxRows());
        yield '</sheetData></worksheet>';
      },
    },
  ];
  await writeZipFile(path, entries);
}

/**
 * `size` bytes of comma-separated values; a line break every `lineEvery` fields, or none at all (0):
 * the worst case for a row-based reader.
 */
export function writeCsv(path: string, size: number, lineEvery = 0): void {
  const random = seeded(52);
  const words = vocabulary(random, 2_000);
  const buffer = Buffer.alloc(size);
  let fields = 0;
  let at = 0;
  while (at < buffer.length) {
    const field =
      random() < 0.5 ? words[Math.floor(random() * words.length)]! : String(Math.floor(random() * 1e6));
    fields += 1;
    const separator = at === 0 ? '' : lineEvery > 0 && fields % lineEvery === 0 ? '\n' : ',';
    at += buffer.write(`${separator}${field}`, at, 'latin1');
  }
  writeFileSync(path, buffer);
}

const MAKERS: Record<string, { fileName: string; make: (path: string) => void | Promise<void> }> = {
  docx: { fileName: 'large.docx', make: (path) => writeDocx(path, 47 * MB) },
  csv: { fileName: 'one-line.csv', make: (path) => writeCsv(path, 50 * MB) },
  xlsx: { fileName: 'large.xlsx', make: (path) => writeXlsx(path, 50 * MB) },
  pdf: { fileName: 'pages200.pdf', make: (path) => writePdf(path, 200) },
};

/** The input `fileName` in the cache, made by `make` on first use. */
async function cached(
  name: string,
  fileName: string,
  make: (path: string) => void | Promise<void>,
): Promise<BenchInput> {
  mkdirSync(cacheDir, { recursive: true });
  const path = join(cacheDir, `v1-${fileName}`);
  if (!existsSync(path)) {
    const partial = `${path}.partial`;
    await make(partial);
    renameSync(partial, path);
  }
  return { name, fileName, path, bytes: statSync(path).size };
}

/** The benchmark's inputs, generated on first use (the DOCX and XLSX take a minute or so). */
export async function benchInputs(): Promise<BenchInput[]> {
  const inputs: BenchInput[] = [];
  for (const [name, maker] of Object.entries(MAKERS))
    inputs.push(await cached(name, maker.fileName, maker.make));
  return inputs;
}

/**
 * `count` different text-heavy DOCX files of about 4.8 MB that the parser accepts (plain paragraphs:
 * ~15 MB of XML, ~14 MB of text), so that an upload goes through every stage: what issue 26
 * measured ingestion on.
 */
export async function ingestInputs(count: number): Promise<BenchInput[]> {
  const inputs: BenchInput[] = [];
  for (let copy = 0; copy < count; copy += 1) {
    const fileName = `report-${copy + 1}.docx`;
    inputs.push(
      await cached(`docx${copy + 1}`, fileName, (path) =>
        writeDocx(path, 4.8 * MB, { seed: 1_000 + copy, markup: 'plain' }),
      ),
    );
  }
  return inputs;
}
