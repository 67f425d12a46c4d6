import type { ParseContext } from '../context.js';
import { ParseError } from '../errors.js';
import type { ParsedDocument } from '../model.js';
import { readCsvRecords, UNCAPPED } from './csvReader.js';
import { createDocumentBuilder, titleFromFileName } from './documentBuilder.js';
import { readTextInput } from './input.js';

const DELIMITERS = [',', ';', '\t', '|'] as const;
/** Enough rows to judge a delimiter, cut at a line end. */
const SAMPLE_CHARS = 64 * 1024;
const SAMPLE_ROWS = 200;
/** How often (in rows) reading yields to the event loop, so an abort from the pool gets through. */
const CHECKPOINT_ROWS = 20_000;

/**
 * CSV (and TSV, `;`- or `|`-separated files) as one table. The delimiter is the candidate that
 * splits the sample into the most consistent column count; quoted fields may hold delimiters,
 * quotes and newlines; ragged rows are padded. The first row is the header when all its cells are
 * distinct, non-empty and non-numeric. Rows, fields per row, field length (`maxRows`,
 * `maxRowFields`, `maxFieldChars`) and cells (`maxCells`) are counted while reading: over one is
 * `too_large` as soon as it is crossed.
 */
export async function parseCsv(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const { text, encoding } = readTextInput(bytes, ctx);
  const delimiter = detectDelimiter(text);
  const builder = createDocumentBuilder(ctx, '.csv');
  await builder.checkpoint();

  const { limits } = ctx;
  const rows: string[][] = [];
  let cells = 0;
  let read = 0;
  for (const record of readCsvRecords(text, delimiter, limits, ctx.fileName)) {
    read += 1;
    cells += record.length;
    if (cells > limits.maxCells) {
      throw new ParseError('too_large', `${ctx.fileName}: more than ${limits.maxCells} cells (maxCells)`);
    }
    if (record.some((cell) => cell !== '')) rows.push(record);
    if (read % CHECKPOINT_ROWS === 0) await builder.checkpoint();
  }
  await builder.checkpoint();

  // The builder pads ragged rows and refuses the padded grid above maxCells.
  builder.table(rows, isHeaderRow(rows), null);
  const width = rows.reduce((widest, row) => Math.max(widest, row.length), 0);
  return builder.finish({
    title: titleFromFileName(ctx.fileName),
    extra: { delimiter: delimiter === '\t' ? 'tab' : delimiter, encoding, rows: rows.length, columns: width },
  });
}

/** The first `SAMPLE_ROWS` records of `sample`; null when they cannot be read (a quote the cut left open). */
function sampleRows(sample: string, delimiter: string): string[][] | null {
  const rows: string[][] = [];
  try {
    for (const record of readCsvRecords(sample, delimiter, UNCAPPED, 'sample')) {
      rows.push(record);
      if (rows.length >= SAMPLE_ROWS) break;
    }
  } catch {
    return null;
  }
  return rows;
}

/**
 * Scores each candidate on a sample: the share of rows having the most common field count, with
 * that count above one. Ties go to more columns, then to the order of `DELIMITERS`.
 */
export function detectDelimiter(text: string): string {
  const cut = text.length > SAMPLE_CHARS ? text.lastIndexOf('\n', SAMPLE_CHARS) : text.length;
  const sample = text.slice(0, cut > 0 ? cut : SAMPLE_CHARS);
  let best: { delimiter: string; score: number; columns: number } = { delimiter: ',', score: 0, columns: 1 };
  for (const delimiter of DELIMITERS) {
    const rows = sampleRows(sample, delimiter);
    if (!rows) continue; // judge by the other candidates
    const counts = new Map<number, number>();
    for (const row of rows) counts.set(row.length, (counts.get(row.length) ?? 0) + 1);
    let columns = 1;
    let frequency = 0;
    for (const [count, seen] of counts) {
      if (seen > frequency || (seen === frequency && count > columns)) {
        columns = count;
        frequency = seen;
      }
    }
    if (columns < 2 || rows.length === 0) continue;
    const score = frequency / rows.length;
    if (score > best.score + 1e-9 || (Math.abs(score - best.score) <= 1e-9 && columns > best.columns)) {
      best = { delimiter, score, columns };
    }
  }
  return best.delimiter;
}

/** A header row is text, not data: every cell non-empty, non-numeric and distinct. */
function isHeaderRow(rows: readonly string[][]): boolean {
  const first = rows[0];
  if (!first || rows.length < 2) return false;
  const seen = new Set<string>();
  for (const cell of first) {
    const value = cell.trim();
    if (!value || isNumeric(value) || seen.has(value.toLowerCase())) return false;
    seen.add(value.toLowerCase());
  }
  return true;
}

function isNumeric(value: string): boolean {
  return (
    /^[-+]?[$€£¥]?\s*(\d{1,3}([,\s.]\d{3})*|\d+)([.,]\d+)?\s*%?$/.test(value) ||
    /^\d{4}-\d{2}-\d{2}/.test(value)
  );
}
