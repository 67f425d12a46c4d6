/**
 * The formats the other corpus steps leave out: PowerPoint files python-pptx (PyPI sdist, `pip
 * download`) ships for its own tests, one of them saved by LibreOffice Impress as OpenDocument
 * presentation, and a Windows bitmap of a scanned-looking strip render.ts made (8-bit grey with a
 * palette, bottom-up rows: what scanners and old tools write). Appends their rows to manifest.tsv.
 * Needs pip and LibreOffice Impress, which only this step uses — never the tests. Run after
 * scripts/corpus/office.ts: `node --import tsx scripts/corpus/slidesAndBitmap.ts`.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';

const OUT = new URL('../../test/corpus/real/', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'corpus-slides-'));
const PYTHON_PPTX = '1.0.2';

const run = (command: string, args: string[]): void => {
  const result = spawnSync(command, args, { cwd: work, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed`);
};

run('pip', ['download', '--no-deps', '--no-binary', ':all:', `python-pptx==${PYTHON_PPTX}`]);
run('tar', ['xzf', `python_pptx-${PYTHON_PPTX}.tar.gz`]);
const files = join(work, `python_pptx-${PYTHON_PPTX}`, 'features/steps/test_files');
const rows: string[] = [];
for (const [id, file, what] of [
  ['pptx-python-pptx-title', 'test.pptx', 'a title slide'],
  ['pptx-python-pptx-tables', 'tbl-cell.pptx', 'tables with merged cells'],
]) {
  copyFileSync(join(files, file!), `${OUT}${id}.pptx`);
  rows.push(
    [
      id,
      `${id}.pptx`,
      `pypi:python-pptx`,
      PYTHON_PPTX,
      `features/steps/test_files/${file}`,
      'MIT',
      `whole (${what})`,
    ].join('\t'),
  );
}

run('soffice', ['--headless', '--convert-to', 'odp', '--outdir', work, `${OUT}pptx-python-pptx-tables.pptx`]);
copyFileSync(join(work, 'pptx-python-pptx-tables.odp'), `${OUT}odp-python-pptx-tables.odp`);
rows.push(
  'odp-python-pptx-tables\todp-python-pptx-tables.odp\trendered:pptx-python-pptx-tables\t-\twhole\tMIT\tscripts/corpus/slidesAndBitmap.ts: saved by LibreOffice 7.4.7.2 Impress as ODP',
);

/** An uncompressed BMP (BITMAPINFOHEADER, 8 bits a pixel, a grey palette). */
async function greyBitmap(from: string, to: string): Promise<void> {
  const { data, info } = await sharp(from).greyscale().raw().toBuffer({ resolveWithObject: true });
  const stride = Math.ceil(info.width / 4) * 4;
  const pixelsAt = 14 + 40 + 256 * 4;
  const file = Buffer.alloc(pixelsAt + stride * info.height);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(pixelsAt, 10);
  file.writeUInt32LE(40, 14);
  file.writeInt32LE(info.width, 18);
  file.writeInt32LE(info.height, 22); // positive: rows bottom-up
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(8, 28);
  file.writeUInt32LE(stride * info.height, 34);
  file.writeInt32LE(5906, 38); // 150 DPI in pixels per metre
  file.writeInt32LE(5906, 42);
  file.writeUInt32LE(256, 46);
  for (let level = 0; level < 256; level += 1) file.writeUInt32LE(level * 0x010101, 54 + level * 4);
  for (let row = 0; row < info.height; row += 1) {
    const source = data.subarray(row * info.width, (row + 1) * info.width);
    source.copy(file, pixelsAt + (info.height - 1 - row) * stride);
  }
  writeFileSync(to, file);
}
await greyBitmap(`${OUT}ocr-en-handbook-apt-cache.jpg`, `${OUT}bmp-handbook-apt-cache.bmp`);
copyFileSync(`${OUT}ocr-en-handbook-apt-cache.reference.txt`, `${OUT}bmp-handbook-apt-cache.reference.txt`);
rows.push(
  'bmp-handbook-apt-cache\tbmp-handbook-apt-cache.bmp\trendered:ocr-en-handbook-apt-cache\t-\twhole\tas its source\tscripts/corpus/slidesAndBitmap.ts: the JPEG strip as an 8-bit grey BMP (bottom-up rows, 256-grey palette)',
);

appendFileSync(`${OUT}manifest.tsv`, `${rows.join('\n')}\n`);
console.log(`written from ${work}`);
