/**
 * Our CSV reader (`src/parsing/text/csvReader.ts`) against csv-parse (already a dependency: the reST
 * `csv-table` directive uses it), measured to decide whether the hand-written reader should go.
 *
 * - Inputs: the CSV/TSV files of the test corpus and fixtures (decoded and their delimiter detected
 *   as `parseCsv` does), and two generated files (deterministic): ~10 MB exported from a
 *   spreadsheet (CRLF, quoted fields holding commas, line breaks and doubled quotes, accents, Arabic,
 *   empty cells) and ~5 MB of plain `;`-separated numbers and words.
 * - Contenders: (a) ours with the default caps, from the decoded text; (b) csv-parse (sync API)
 *   from the same text, with the options that come closest to our rules (blanks trimmed, relaxed
 *   quotes, ragged rows, LF/CRLF/CR, empty lines skipped) and no hooks — its best case; (b′) the
 *   same from UTF-8 bytes encoded beforehand; (c) (b) plus our caps checked on each finished record
 *   (`on_record`); (d) (b) plus fields per row and field length checked on each finished field
 *   (`cast`) and rows on each record — the closest csv-parse's hooks come to checking as the
 *   characters go by. The hooks throw our errors with our messages.
 * - Speed: the contenders alternate (a … d, then d … a, …) for RUNS runs after a warm-up; the
 *   median of each gives MB/s (MB of the UTF-8 input) and the ratio to ours. Small files are read
 *   many times in one run, so that a run reads at least 1 MB.
 * - Fidelity: rows (or the error) of each contender against ours on every input, on the cases the
 *   tests pin down and a few more corners, and on the caps of `docs/api-notes.md` (Table caps); every difference is printed.
 *
 *   npm run bench -- csvReader            (RUNS=15 for more runs)
 */
import { parse as csvParse, type Options as CsvParseOptions } from 'csv-parse/sync';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PARSE_LIMITS } from '../src/parsing/context.js';
import { ParseError } from '../src/parsing/errors.js';
import { readCsvRecords, type CsvCaps } from '../src/parsing/text/csvReader.js';
import { decodeText } from '../src/parsing/text/decode.js';
import { detectDelimiter } from '../src/parsing/text/parseCsv.js';
import { machine, median } from './support.js';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const RUNS = Number(process.env['RUNS'] ?? 7);
/** A run reads a small input this many bytes' worth of times, so that it is long enough to time. */
const BYTES_PER_RUN = 1024 * 1024;

const CAPS: CsvCaps = {
  maxRows: DEFAULT_PARSE_LIMITS.maxRows,
  maxRowFields: DEFAULT_PARSE_LIMITS.maxRowFields,
  maxFieldChars: DEFAULT_PARSE_LIMITS.maxFieldChars,
};

// ---------------------------------------------------------------------------------------------
// Inputs

interface Input {
  name: string;
  text: string;
  delimiter: string;
  /** Size of the input as UTF-8 bytes (what MB/s is counted in). */
  bytes: number;
}

function fromFile(path: string): Input {
  const bytes = new Uint8Array(readFileSync(join(root, path)));
  const { text } = decodeText(bytes);
  return { name: path.split('/').pop() ?? path, text, delimiter: detectDelimiter(text), bytes: bytes.length };
}

function fromText(name: string, text: string): Input {
  return { name, text, delimiter: detectDelimiter(text), bytes: Buffer.byteLength(text, 'utf8') };
}

function random(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * below);
  };
}

const WORDS = (
  'river bank erosion pin survey station sample water quality oxygen nitrate turbidity volunteer season ' +
  'measure record photo transect channel sediment willow flood basin upper lower laboratory report result ' +
  'café crème Zürich Ærø naïve صيانة المحطة مياه'
).split(' ');

/** A spreadsheet export: CRLF, quoted text cells holding commas, line breaks and doubled quotes. */
function spreadsheetExport(targetBytes: number): string {
  const pick = random(7);
  const words = (count: number): string =>
    Array.from({ length: count }, () => WORDS[pick(WORDS.length)] ?? 'river').join(' ');
  const parts = ['id,date,site,reading,unit,valid,operator,location,notes,comment\r\n'];
  let size = parts[0]!.length;
  for (let i = 1; size < targetBytes; i += 1) {
    const comment =
      pick(4) === 0
        ? `"${words(5)}\r\n${words(3)}, then ""${words(1)}"" ${words(2)}"`
        : pick(3) === 0
          ? ''
          : `"${words(6)}, ${words(2)}"`;
    const row =
      `${i},2024-${String((i % 12) + 1).padStart(2, '0')}-${String((i % 28) + 1).padStart(2, '0')},` +
      `RW-${pick(97)},${(pick(100_000) / 100).toFixed(2)},mg/l,${pick(5) === 0 ? 'FALSE' : 'TRUE'},` +
      `op${pick(13)},"${words(2)}, ${words(1)}",${pick(2) === 0 ? '' : words(3)},${comment}\r\n`;
    parts.push(row);
    size += row.length;
  }
  return parts.join('');
}

/** Plain `;`-separated numbers and words, LF, nothing quoted. */
function plainTable(targetBytes: number): string {
  const pick = random(11);
  const parts = ['id;station;x;y;depth;oxygen;nitrate;turbidity;tag\n'];
  let size = parts[0]!.length;
  for (let i = 1; size < targetBytes; i += 1) {
    const row =
      `${i};ST-${pick(500)};${pick(1_000_000)};${pick(1_000_000)};${(pick(10_000) / 100).toFixed(2)};` +
      `${(pick(1500) / 100).toFixed(2)};${(pick(900) / 100).toFixed(2)};${pick(400)};${WORDS[pick(WORDS.length)]}\n`;
    parts.push(row);
    size += row.length;
  }
  return parts.join('');
}

/**
 * Compared, not timed: texts `test/parsing/text/csv.test.ts` pins down and the corners of the rules
 * `readCsvRecords` documents (blanks are spaces and tabs, a quote only closes before a delimiter or
 * a line end, a line of blanks is a record, the text is read as UTF-16 code units).
 */
const EDGE_CASES: Array<[string, string, string]> = [
  ['line ends', 'a,b\r\n\r\nc,d\re,\n\nf', ','],
  ['stray quotes', '"say "hi" now", x"y , "a""b"\n', ','],
  ['blanks around quoted', '  "a" ,  b  \n', ','],
  ['unicode blanks', 'a,\u00a0b\u00a0,\u2003c\n', ','],
  ['blank line', 'x,y\n   \nz,w\n', ','],
  ['text after closing quote', '"a"x,b\n"c",d\n', ','],
  ['trailing delimiter', 'a,b,', ','],
  ['empty lines and delimiters', '\n;;;\n\n', ';'],
  ['unclosed quote', 'a,b\n1,"never closed\n2,3\n', ','],
  ['ragged rows', '2023,North Bridge,9.1\n2024,Mill Weir\n2025,South Ford,7.9,extra\n', ','],
  ['lone surrogate (TextDecoder never gives one)', 'a,\ud800b\n', ','],
];

// ---------------------------------------------------------------------------------------------
// Readers

/** One input as each reader takes it: the decoded text, and its UTF-8 bytes made beforehand. */
interface Source {
  text: string;
  utf8: Buffer;
  delimiter: string;
}

type Reader = (source: Source, caps: CsvCaps, label: string) => string[][];

const ours: Reader = ({ text, delimiter }, caps, label) => [...readCsvRecords(text, delimiter, caps, label)];

/** csv-parse set to our rules as far as its options go. */
function csvParseOptions(delimiter: string): CsvParseOptions {
  return {
    delimiter,
    ltrim: true,
    rtrim: true,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: true,
    record_delimiter: ['\r\n', '\n', '\r'],
  };
}

/** Our errors, for the hooks. */
function capErrors(caps: CsvCaps, label: string) {
  const tooLarge = (what: string, limit: number, setting: string): ParseError =>
    new ParseError('too_large', `${label}: ${what}; the limit is ${limit} (${setting})`);
  return {
    rows: () => tooLarge(`more than ${caps.maxRows} rows`, caps.maxRows, 'PARSE_MAX_ROWS'),
    fields: (line: number) =>
      tooLarge(
        `line ${line} has more than ${caps.maxRowFields} fields`,
        caps.maxRowFields,
        'PARSE_MAX_ROW_FIELDS',
      ),
    fieldChars: (line: number) =>
      tooLarge(
        `a field on line ${line} is longer than ${caps.maxFieldChars} characters`,
        caps.maxFieldChars,
        'PARSE_MAX_FIELD_CHARS',
      ),
  };
}

/** (b) No caps: csv-parse at its fastest, from the decoded text (the sync API encodes it to UTF-8). */
const csvParseText: Reader = ({ text, delimiter }) => csvParse(text, csvParseOptions(delimiter));

/** (b′) The same from UTF-8 bytes made beforehand (only possible for UTF-8 files): no encoding in the timing. */
const csvParseBytes: Reader = ({ utf8, delimiter }) => csvParse(utf8, csvParseOptions(delimiter));

/** (c) Caps checked per record (`on_record`): the cheapest hook, but a record is whole before it is checked. */
const csvParseRecordCaps: Reader = ({ text, delimiter }, caps, label) => {
  const errors = capErrors(caps, label);
  let rows = 0;
  return csvParse(text, {
    ...csvParseOptions(delimiter),
    on_record: (record: string[], context) => {
      if (record.length > caps.maxRowFields) throw errors.fields(context.lines);
      for (const field of record)
        if (field.length > caps.maxFieldChars) throw errors.fieldChars(context.lines);
      rows += 1;
      if (rows > caps.maxRows) throw errors.rows();
      return record;
    },
  }) as string[][];
};

/** (d) Fields per row and field length per finished field (`cast`), rows per record (`on_record`). */
const csvParseFieldCaps: Reader = ({ text, delimiter }, caps, label) => {
  const errors = capErrors(caps, label);
  let rows = 0;
  return csvParse(text, {
    ...csvParseOptions(delimiter),
    cast: (value, context) => {
      if (context.index >= caps.maxRowFields) throw errors.fields(context.lines);
      if (value.length > caps.maxFieldChars) throw errors.fieldChars(context.lines);
      return value;
    },
    on_record: (record: string[]) => {
      rows += 1;
      if (rows > caps.maxRows) throw errors.rows();
      return record;
    },
  }) as string[][];
};

interface Contender {
  name: string;
  read: Reader;
  /** Enforces the caps (compared on the cap cases). */
  capped: boolean;
  /** Timed in this many of the runs at most (the slowest contender would otherwise take minutes). */
  maxRuns?: number;
}

const CONTENDERS: Contender[] = [
  { name: '(a) ours', read: ours, capped: true },
  { name: '(b) csv-parse', read: csvParseText, capped: false },
  { name: "(b') csv-parse from bytes", read: csvParseBytes, capped: false },
  { name: '(c) csv-parse + record caps', read: csvParseRecordCaps, capped: true },
  { name: '(d) csv-parse + field caps', read: csvParseFieldCaps, capped: true, maxRuns: 3 },
];

// ---------------------------------------------------------------------------------------------
// Fidelity

type Outcome = { rows: string[][] } | { error: string };

function outcome(reader: Reader, source: Source, caps: CsvCaps, label: string): Outcome {
  try {
    return { rows: reader(source, caps, label) };
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'error';
    return { error: `${code}: ${(error as Error).message}` };
  }
}

/** JSON, with blanks other than the space spelt out, cut at `max` characters. */
const show = (value: unknown, max = 160): string => {
  const text = (JSON.stringify(value) ?? 'nothing').replace(
    /(?! )\s/gu,
    (blank) => `\\u${blank.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return text.length > max ? `${text.slice(0, max)}…` : text;
};

/** The differences between two outcomes, as lines (none when they agree). */
function differences(expected: Outcome, actual: Outcome, limit = 3): string[] {
  if ('error' in expected || 'error' in actual) {
    const a = 'error' in expected ? expected.error : show(expected.rows, 200);
    const b = 'error' in actual ? actual.error : show(actual.rows, 200);
    return a === b ? [] : [`ours: ${a}`, `them: ${b}`];
  }
  const lines: string[] = [];
  const count = Math.max(expected.rows.length, actual.rows.length);
  let differing = 0;
  for (let i = 0; i < count; i += 1) {
    const a = expected.rows[i];
    const b = actual.rows[i];
    if (JSON.stringify(a) === JSON.stringify(b)) continue;
    differing += 1;
    if (differing > limit) continue;
    const label = `record ${i + 1}: `;
    lines.push(`${label}ours ${show(a)}`, `${' '.repeat(label.length)}them ${show(b)}`);
  }
  if (expected.rows.length !== actual.rows.length) {
    lines.unshift(`${expected.rows.length} records against ${actual.rows.length}`);
  }
  if (differing > limit) lines.push(`… ${differing} differing records in all`);
  return lines;
}

/** Prints how each contender's outcome differs from ours; true when none does. */
function compare(
  title: string,
  source: Source,
  caps: CsvCaps,
  label: string,
  contenders: Contender[],
): boolean {
  const expected = outcome(ours, source, caps, label);
  let same = true;
  let previous: string[] = [];
  for (const contender of contenders) {
    const found = differences(expected, outcome(contender.read, source, caps, label));
    if (found.length === 0) continue;
    same = false;
    const repeated = found.join('\n') === previous.join('\n');
    console.log(`    ${title} — ${contender.name}${repeated ? ': the same difference' : ' differs:'}`);
    if (!repeated) for (const line of found) console.log(`        ${line}`);
    previous = found;
  }
  return same;
}

const source = (text: string, delimiter: string): Source => ({
  text,
  utf8: Buffer.from(text, 'utf8'),
  delimiter,
});

// ---------------------------------------------------------------------------------------------
// Run

console.log(`machine: ${machine()}`);
console.log(
  `load average (1, 5, 15 min): ${loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')}`,
);

const inputs: Input[] = [
  fromFile('test/corpus/real/csv-debian-releases.csv'),
  fromFile('test/corpus/real/csv-ubuntu-releases.csv'),
  fromFile('test/corpus/real/manifest.tsv'),
  fromFile('test/fixtures/documents/text/inventory.csv'),
  fromText('generated-export-10mb.csv', spreadsheetExport(10 * 1024 * 1024)),
  fromText('generated-plain-5mb.csv', plainTable(5 * 1024 * 1024)),
];
const others = CONTENDERS.slice(1);

console.log('\nfidelity: the rows of every contender against ours (default caps)');
let identical = 0;
for (const input of inputs) {
  const same = compare(input.name, source(input.text, input.delimiter), CAPS, input.name, others);
  if (same) identical += 1;
  console.log(`  ${input.name.padEnd(32)} ${same ? 'identical' : 'DIFFERENT'}`);
}
for (const [name, text, delimiter] of EDGE_CASES) {
  const same = compare(`${show(text, 60)}`, source(text, delimiter), CAPS, 't.csv', others);
  if (same) identical += 1;
  console.log(`  case: ${name.padEnd(26)} ${same ? 'identical' : 'DIFFERENT'}`);
}
console.log(`  ${identical} of ${inputs.length + EDGE_CASES.length} inputs identical for every contender`);

console.log('\ncaps (docs/api-notes.md, Table caps): the outcome of the contenders that enforce them');
const capCases: Array<[string, string, Partial<CsvCaps>]> = [
  [
    '200,000 fields on one line ending in an unclosed quote',
    `${Array.from({ length: 200_000 }, (_, i) => `v${i}`).join(',')},"never closed`,
    {},
  ],
  ['unquoted field over maxFieldChars=100', `a,b\n1,${'x'.repeat(5_000)}\n`, { maxFieldChars: 100 }],
  [
    'quoted field over maxFieldChars=100, never closed',
    `a,b\n1,"${'x'.repeat(5_000)}`,
    { maxFieldChars: 100 },
  ],
  [
    'two 60-character fields on a line, maxFieldChars=100',
    `a,b\n${'y'.repeat(60)},${'z'.repeat(60)}\n`,
    { maxFieldChars: 100 },
  ],
  ['3 rows holding line breaks, maxRows=3', 'a,"line one\nline two\nline three"\n'.repeat(3), { maxRows: 3 }],
  ['4 rows, maxRows=3', 'a,b\n'.repeat(4), { maxRows: 3 }],
];
const capped = others.filter((contender) => contender.capped);
let capsSame = 0;
for (const [name, text, caps] of capCases) {
  const same = compare(name, source(text, ','), { ...CAPS, ...caps }, 'cap.csv', capped);
  if (same) capsSame += 1;
  console.log(`  ${name.padEnd(56)} ${same ? 'same outcome' : 'DIFFERENT'}`);
}
console.log(`  ${capsSame} of ${capCases.length} cap cases give the same outcome (rows or error message)`);

console.log(
  `\nspeed: median of ${RUNS} runs after a warm-up (${CONTENDERS.filter(
    ({ maxRuns }) => maxRuns !== undefined,
  )
    .map(({ name, maxRuns }) => `${name.split(' ')[0]}: ${Math.min(RUNS, maxRuns!)}`)
    .join(', ')}), contenders alternating; MB = 2^20 bytes of UTF-8 input`,
);
const header = ['input', 'MB', 'records', ...CONTENDERS.map(({ name }) => name.split(' ')[0]!)];
const wallTable: string[][] = [header];
const cpuTable: string[][] = [header];
for (const input of inputs) {
  const from = source(input.text, input.delimiter);
  const repeat = Math.max(1, Math.ceil(BYTES_PER_RUN / input.bytes));
  /** Wall and CPU (user + system, the process) milliseconds of one run. */
  const time = (reader: Reader): [number, number] => {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    for (let i = 0; i < repeat; i += 1) reader(from, CAPS, input.name);
    const cpu = process.cpuUsage(cpuStarted);
    return [performance.now() - started, (cpu.user + cpu.system) / 1000];
  };
  for (const { read } of CONTENDERS) time(read); // warm-up
  const wall = CONTENDERS.map((): number[] => []);
  const cpu = CONTENDERS.map((): number[] => []);
  const forward = CONTENDERS.map((_, index) => index);
  const backward = [...forward].reverse();
  for (let run = 0; run < RUNS; run += 1) {
    for (const index of run % 2 === 0 ? forward : backward) {
      const contender = CONTENDERS[index]!;
      if (run >= (contender.maxRuns ?? RUNS)) continue;
      const [wallMs, cpuMs] = time(contender.read);
      wall[index]!.push(wallMs);
      cpu[index]!.push(cpuMs);
    }
  }
  const megabytes = (input.bytes * repeat) / 2 ** 20;
  const row = (times: number[][]): string[] => {
    const rates = times.map((list) => megabytes / (median(list) / 1000));
    return [
      input.name,
      (input.bytes / 2 ** 20).toFixed(3),
      String(ours(from, CAPS, input.name).length),
      ...rates.map((rate, index) =>
        index === 0 ? rate.toFixed(1) : `${rate.toFixed(1)} (${(rate / rates[0]!).toFixed(2)}×)`,
      ),
    ];
  };
  wallTable.push(row(wall));
  cpuTable.push(row(cpu));
}
const print = (title: string, table: string[][]): void => {
  console.log(title);
  const widths = header.map((_, c) => Math.max(...table.map((row) => (row[c] ?? '').length)));
  for (const row of table) {
    console.log(
      `  ${row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')}`,
    );
  }
};
print('MB/s of each contender by wall time (its ratio to ours)', wallTable);
print('MB per CPU-second of the process (what other work on the machine inflates less)', cpuTable);
console.log('contenders:');
for (const { name } of CONTENDERS) console.log(`  ${name}`);
console.log(
  `load average at the end (1, 5, 15 min): ${loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')}`,
);
