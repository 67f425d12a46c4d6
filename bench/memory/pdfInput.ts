import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { seeded, vocabulary } from './words.js';

/** `pages` US Letter pages of Helvetica text (a heading and 45 lines each), streams Flate-compressed. */
export function writePdf(path: string, pages: number): void {
  const random = seeded(53);
  const words = vocabulary(random, 3_000);
  const objects: Buffer[] = [];
  const add = (body: string | Buffer[]): number => {
    objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : Buffer.concat(body));
    return objects.length;
  };
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // the page tree, written once its kids are known
  const font = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const bold = add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>');
  const kids: number[] = [];
  for (let page = 1; page <= pages; page += 1) {
    let content = `BT /F2 16 Tf 72 740 Td (Section ${page}) Tj ET\n`;
    for (let line = 0; line < 45; line += 1) {
      const text = Array.from({ length: 11 }, () => words[Math.floor(random() * words.length)]).join(' ');
      content += `BT /F1 10 Tf 72 ${716 - line * 14} Td (${text}) Tj ET\n`;
    }
    const data = deflateSync(Buffer.from(content, 'latin1'));
    const stream = add([
      Buffer.from(`<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ]);
    kids.push(
      add(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R /F2 ${bold} 0 R >> >> /Contents ${stream} 0 R >>`,
      ),
    );
  }
  objects[1] = Buffer.from(
    `<< /Type /Pages /Kids [${kids.map((kid) => `${kid} 0 R`).join(' ')}] /Count ${pages} >>`,
    'latin1',
  );
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    for (const part of [
      Buffer.from(`${index + 1} 0 obj\n`, 'latin1'),
      body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]) {
      parts.push(part);
      length += part.length;
    }
  });
  const xref = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
      'latin1',
    ),
  );
  writeFileSync(path, Buffer.concat(parts));
}
