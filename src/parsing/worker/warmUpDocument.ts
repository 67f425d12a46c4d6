import { deflateSync } from 'node:zlib';
import { DEFAULT_PARSE_LIMITS, DEFAULT_PARSE_OPTIONS } from '../context.js';
import type { ParseJob } from '../job.js';

/**
 * The documents every worker parses once as it warms up. The first PDF a worker parses compiles
 * pdf.js's code paths and fills its caches (tens of MB that stay for the worker's life, and a few
 * hundred ms): paying for it at start makes idle memory what a serving worker really holds, so memory
 * a document leaves behind can be told from memory any document would, and the first request is as
 * fast as the next. A one-page PDF chunked whole (`/parse/sections`), then a three-page PDF with
 * compressed content streams and headings read incrementally (`/parse/sections/incremental`): the
 * incremental path (read-ahead of several pages, Flate streams, the page-by-page chunker) made the
 * first request after start ~30 ms slower than the next ones when only the first was warmed. Kept
 * small: a request that arrives while a worker still warms up shares its thread with the warm-up.
 */
export function warmUpJobs(): ParseJob[] {
  const base = {
    options: { ...DEFAULT_PARSE_OPTIONS, enableImageDescription: false },
    cleaning: { removeUrls: true, normalizeArabic: true },
    limits: DEFAULT_PARSE_LIMITS,
    chunking: { mode: 'auto' as const, targetWords: 500, maxWords: 1500 },
  };
  const paragraph = 'A paragraph of text that makes the parser read, clean and chunk a page.';
  const pages = ['Overview', 'Methods', 'Results'].map(
    (title, i) =>
      `BT /F1 18 Tf 72 ${720 - i * 10} Td (${title}) Tj ET\n` +
      Array.from(
        { length: 6 },
        (__, line) => `BT /F1 11 Tf 72 ${690 - line * 14} Td (${paragraph}) Tj ET`,
      ).join('\n'),
  );
  return [
    {
      ...base,
      kind: 'sections',
      fileName: 'warm-up.pdf',
      bytes: pdfOf(
        [`BT /F1 18 Tf 72 720 Td (Warm-up) Tj ET\nBT /F1 11 Tf 72 690 Td (${paragraph}) Tj ET`],
        false,
      ),
      includeFullText: true,
    },
    { ...base, kind: 'incremental', fileName: 'warm-up-pages.pdf', bytes: pdfOf(pages, true) },
  ];
}

/** A PDF of the given page content streams (Helvetica as F1), Flate-compressed when asked. */
function pdfOf(contents: string[], compress: boolean): Uint8Array {
  const pageIds = contents.map((_, i) => 4 + i * 2);
  const objects: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${contents.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  for (const [i, content] of contents.entries()) {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageIds[i]! + 1} 0 R >>`,
    );
    const data = compress ? deflateSync(content) : Buffer.from(content, 'latin1');
    objects.push(
      Buffer.concat([
        Buffer.from(
          `<< /Length ${data.length}${compress ? ' /Filter /FlateDecode' : ''} >>\nstream\n`,
          'latin1',
        ),
        data,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
  }
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets = objects.map((body, index) => {
    const offset = length;
    const part = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(part);
    length += part.length;
    return offset;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  tail += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(tail, 'latin1'));
  return new Uint8Array(Buffer.concat(parts));
}
