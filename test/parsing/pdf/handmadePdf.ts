import { deflateSync } from 'node:zlib';

/**
 * Writes a small, valid PDF from object bodies (object n is `objects[n - 1]`, object 1 the catalog),
 * with a correct cross-reference table. For inputs no office tool produces: no pages, a blank page,
 * a decompression bomb.
 */
export function handmadePdf(objects: Array<string | Buffer[]>): Uint8Array {
  const parts: Buffer[] = [];
  let length = 0;
  const add = (chunk: string | Buffer): void => {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    parts.push(buffer);
    length += buffer.length;
  };
  add('%PDF-1.4\n');
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    add(`${index + 1} 0 obj\n`);
    if (typeof body === 'string') add(body);
    else body.forEach(add);
    add('\nendobj\n');
  });
  const xref = length;
  const entries = offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  add(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}`);
  add(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return new Uint8Array(Buffer.concat(parts));
}

/** A PDF whose page tree has no pages at all. */
export function pdfWithoutPages(): Uint8Array {
  return handmadePdf(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>']);
}

/** One page whose content stream is `content` (Flate-compressed when `compress`), with Helvetica as /F1. */
export function onePagePdf(content: string | Buffer, compress = false): Uint8Array {
  const raw = typeof content === 'string' ? Buffer.from(content, 'latin1') : content;
  const data = compress ? deflateSync(raw, { level: 9 }) : raw;
  const filter = compress ? ' /Filter /FlateDecode' : '';
  return handmadePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    [
      Buffer.from(`<< /Length ${data.length}${filter} >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ],
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/**
 * One page (US Letter) showing one image XObject (`width`×`height`, uncompressed) scaled to `box`
 * ([x, y, w, h] in PDF points), and no text. `bits` 8 gives RGB pixels, 1 gives 1-bit grey.
 */
export function imagePagePdf(options: {
  width: number;
  height: number;
  bits: 1 | 8;
  pixels: Buffer;
  box: [number, number, number, number];
}): Uint8Array {
  const { width, height, bits, pixels, box } = options;
  const colorSpace = bits === 8 ? '/DeviceRGB' : '/DeviceGray';
  const content = `q ${box[2]} 0 0 ${box[3]} ${box[0]} ${box[1]} cm /Im1 Do Q`;
  return handmadePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    [
      Buffer.from(
        `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace ${colorSpace} /BitsPerComponent ${bits} /Length ${pixels.length} >>\nstream\n`,
        'latin1',
      ),
      pixels,
      Buffer.from('\nendstream', 'latin1'),
    ],
  ]);
}
