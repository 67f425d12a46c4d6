import { DEFAULT_PARSE_LIMITS, DEFAULT_PARSE_OPTIONS } from '../context.js';
import type { ParseJob } from '../job.js';

/**
 * A one-page PDF with a heading and a paragraph, parsed and chunked once by every worker as it
 * warms up. The first PDF a worker parses compiles pdf.js's code paths and fills its caches (tens of
 * MB that stay for the worker's life, and a few hundred ms): paying for it at start makes idle
 * memory what a serving worker really holds, so memory a document leaves behind can be told from
 * memory any document would, and the first request is as fast as the next.
 */
export function warmUpJob(): ParseJob {
  return {
    kind: 'sections',
    fileName: 'warm-up.pdf',
    bytes: onePagePdf(),
    options: { ...DEFAULT_PARSE_OPTIONS, enableImageDescription: false },
    cleaning: { removeUrls: true, normalizeArabic: true },
    limits: DEFAULT_PARSE_LIMITS,
    chunking: { mode: 'auto', targetWords: 500, maxWords: 1500 },
    includeFullText: true,
  };
}

function onePagePdf(): Uint8Array {
  const content =
    'BT /F1 18 Tf 72 720 Td (Warm-up) Tj ET\n' +
    'BT /F1 11 Tf 72 690 Td (A paragraph of text that makes the parser read, clean and chunk a page.) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let text = '%PDF-1.4\n';
  const offsets = objects.map((body, index) => {
    const offset = text.length;
    text += `${index + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  text += offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(text, 'latin1'));
}
