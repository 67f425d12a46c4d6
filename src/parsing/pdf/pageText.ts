import type { PdfPage } from './pdfjs.js';
import { multiply, type Matrix } from './geometry.js';
import { buildRows, type Row } from './rows.js';
import type { TextRun } from './textRun.js';

export interface PageText {
  number: number;
  width: number;
  height: number;
  runs: TextRun[];
  /**
   * `runs` grouped into rows, built once: the document profile, the title guess and the layout all
   * read them (the layout rebuilds rows only when drawn tables took some runs away).
   */
  rows: Row[];
  /** Non-whitespace characters on the page (before any header/footer removal). */
  chars: number;
}

const RTL_CHAR = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;

/** Reads the text layer of a page. Rotated text (watermarks, vertical margin notes) is left out. */
export async function readPageText(page: PdfPage, number: number): Promise<PageText> {
  const viewport = page.getViewport({ scale: 1 });
  const toPage = viewport.transform as Matrix;
  const content = await page.getTextContent({ includeMarkedContent: false, disableNormalization: false });
  const runs: TextRun[] = [];
  let chars = 0;
  for (const item of content.items) {
    if (!('str' in item)) continue;
    const text = item.str;
    const visible = text.replace(/\s+/g, '');
    if (visible === '') continue;
    chars += visible.length;
    const m = multiply(toPage, item.transform as Matrix);
    const size = Math.abs(m[3]);
    if (!(size > 0) || !isHorizontal(m, size)) continue;
    runs.push({
      text,
      x: m[4],
      y: m[5],
      width: Math.max(0, item.width),
      size,
      fontId: item.fontName,
      rtl: item.dir === 'rtl' || RTL_CHAR.test(text),
    });
  }
  return { number, width: viewport.width, height: viewport.height, runs, rows: buildRows(runs), chars };
}

function isHorizontal(m: Matrix, size: number): boolean {
  // Upright text maps to [s, 0, c, -s] in top-left page coordinates (c: a synthetic italic's slant).
  return m[0] > 0 && Math.abs(m[1]) < 0.05 * size && m[3] < 0;
}
