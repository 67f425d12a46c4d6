/**
 * Scores one parsed document against its hand-checked expectations. Pure: no I/O.
 */
import type { Block, ParsedDocument } from '../../src/parsing/model.js';

/** What a corpus document must give, checked by hand once (test/corpus/real/expectations.json). */
export interface Expectation {
  /** Every heading of the document, in order, as [level, text]. */
  headings?: Array<[number, string]>;
  /** Data tables: how many, and cells (any table, any position) that must be read. */
  tables?: { count: number; cells?: string[] };
  /** Snippets of body text that must appear (whitespace and case insensitive). */
  text?: string[];
  /** Text that must not appear: navigation, running headers and footers. */
  absent?: string[];
  /** OCR: file holding the text a reader sees on the image. */
  ocrReference?: string;
}

export interface DocumentScore {
  headings: { expected: number; found: number; matched: number; rightLevel: number } | null;
  tables: { expected: number; found: number; cells: number; cellsFound: number } | null;
  text: { expected: number; found: number } | null;
  absent: { expected: number; clean: number } | null;
  /** Character error rate of OCR against the reference, and the reference's length. */
  ocr: { cer: number; chars: number } | null;
}

/** Case, spacing, quotes and dashes as extraction varies them; trailing colons and dots. */
export function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u2018\u2019\u201a\u201b`´]/g, "'")
    .replace(/[\u201c\u201d\u201e\u201f\u00ab\u00bb\u201d]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u00a0\s]+/g, ' ')
    .trim()
    .toLowerCase();
}

function headingKey(text: string): string {
  return normalise(text).replace(/[\s.:#]+$/u, '');
}

/** OCR comparison: Arabic diacritics (harakat) and tatweel ignored, white space collapsed. */
export function ocrNormalise(text: string): string {
  return text
    .normalize('NFKC')
    .replace(/[\u064b-\u0652\u0670\u0640]/g, '')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Levenshtein distance over code points, two rows. */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= y.length; j += 1) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[y.length] ?? 0;
}

export function characterErrorRate(reference: string, read: string): number {
  const expected = ocrNormalise(reference);
  if (expected.length === 0) return 0;
  return Math.min(1, editDistance(expected, ocrNormalise(read)) / [...expected].length);
}

/** Every text the document shows: blocks, table cells, list items and OCR text of images. */
export function documentText(blocks: readonly Block[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    if (block.type === 'heading' || block.type === 'paragraph') parts.push(block.text);
    else if (block.type === 'list') parts.push(...block.items);
    else if (block.type === 'table') parts.push(...block.table.cells.flat());
    else if (block.image.altText) parts.push(block.image.altText);
  }
  return parts.join('\n');
}

/** The OCR reading of an image document: its paragraphs (the parser puts the OCR text there). */
function ocrText(document: ParsedDocument): string {
  return document.blocks.flatMap((block) => (block.type === 'paragraph' ? [block.text] : [])).join('\n');
}

export function scoreDocument(
  document: ParsedDocument,
  expectation: Expectation,
  ocrReference: string | null,
): DocumentScore {
  const text = normalise(documentText(document.blocks));
  const found = document.blocks.flatMap((block) => (block.type === 'heading' ? [block] : []));
  let headings: DocumentScore['headings'] = null;
  if (expectation.headings) {
    // Matched in order of appearance, each found heading used once.
    const pool = found.map((heading) => ({
      key: headingKey(heading.text),
      level: heading.level,
      used: false,
    }));
    let matched = 0;
    let rightLevel = 0;
    for (const [level, wanted] of expectation.headings) {
      const key = headingKey(wanted);
      const hit = pool.find((candidate) => !candidate.used && candidate.key === key);
      if (!hit) continue;
      hit.used = true;
      matched += 1;
      if (hit.level === level) rightLevel += 1;
    }
    headings = { expected: expectation.headings.length, found: found.length, matched, rightLevel };
  }
  let tables: DocumentScore['tables'] = null;
  if (expectation.tables) {
    const cells = new Set(
      document.blocks.flatMap((block) =>
        block.type === 'table' ? block.table.cells.flat().map(normalise) : [],
      ),
    );
    const allCells = [...cells].join('\n');
    const wanted = expectation.tables.cells ?? [];
    tables = {
      expected: expectation.tables.count,
      found: document.blocks.filter((block) => block.type === 'table').length,
      cells: wanted.length,
      // A cell may be read whole or as part of a merged cell: a substring of some cell counts.
      cellsFound: wanted.filter((cell) => cells.has(normalise(cell)) || allCells.includes(normalise(cell)))
        .length,
    };
  }
  const snippets = expectation.text ?? [];
  const textScore = snippets.length
    ? {
        expected: snippets.length,
        found: snippets.filter((snippet) => text.includes(normalise(snippet))).length,
      }
    : null;
  const noise = expectation.absent ?? [];
  const absent = noise.length
    ? { expected: noise.length, clean: noise.filter((snippet) => !text.includes(normalise(snippet))).length }
    : null;
  const ocr =
    ocrReference === null
      ? null
      : {
          cer: characterErrorRate(ocrReference, ocrText(document)),
          chars: ocrNormalise(ocrReference).length,
        };
  return { headings, tables, text: textScore, absent, ocr };
}
