/**
 * Our sentence splitter and word scanner (`src/text/sentences.ts`, `src/text/words.ts`) beside
 * `Intl.Segmenter` (ICU's UAX #29 rules, with dictionaries for Chinese, Japanese and Thai words), on
 * the text of real documents as the parsers give it to chunking and summarising: the paragraphs,
 * headings and list items (not code blocks or tables) of
 * - English: the Markdown READMEs, plain-text guides and reStructuredText of test/corpus/real and the
 *   text fixtures of test/fixtures/documents/text;
 * - Arabic: test/fixtures/documents/text/arabic.txt, the Arabic OCR references and the Arabic
 *   Handbook page of test/corpus/real, and (for volume: the tests hold 17 KB of Arabic) the 26
 *   Arabic Handbook pages of eval/retrieval/corpus/ar;
 * - Japanese: test/corpus/real/md-zlibjs-readme.md, the only CJK prose in the fixtures (with English
 *   words and code in between). No Chinese or Thai text exists in the fixtures.
 *
 * Speed: MB/s of UTF-8 input, per block as the callers call these functions, each segmenter made
 * once. The contenders alternate (which goes first alternates too), each sample is ≥ ~60 ms of work,
 * and the figure is the median of ROUNDS samples, by CPU time (what another process on a shared core
 * inflates least) and by wall time. Sentences: the trimmed sentence strings, as `splitSentences`
 * returns them. Words: the count (`countWords`, the hot path: every block and piece of every document)
 * and the word strings (`words`).
 *
 * Quality: sentence starts and word spans where the two disagree, counted by kind, with examples,
 * then both ways of splitting a few sentences written here for what the fixtures lack (Chinese, Thai,
 * abbreviations).
 *
 *   npm run bench -- textSegmentation
 *   node --import tsx bench/textSegmentation.bench.ts --speed-only   (or --quality-only)
 */
import { readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PARSE_LIMITS, DEFAULT_PARSE_OPTIONS, type ParseContext } from '../src/parsing/context.js';
import type { Block } from '../src/parsing/model.js';
import { textParsers } from '../src/parsing/text/index.js';
import { splitSentences } from '../src/text/sentences.js';
import { countWords, forEachWord, words } from '../src/text/words.js';
import { machine, median } from './support.js';

const ROUNDS = 9;
const SAMPLE_MS = 60;
const EXAMPLES = 6;

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const corpus = join(root, 'test', 'corpus', 'real');
const textFixtures = join(root, 'test', 'fixtures', 'documents', 'text');
const arabicEval = join(root, 'eval', 'retrieval', 'corpus', 'ar');

interface Group {
  name: string;
  lang: string;
  files: string[];
}

const inCorpus = (pattern: RegExp): string[] =>
  readdirSync(corpus)
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => join(corpus, name));

const groups: Group[] = [
  {
    name: 'English',
    lang: 'en',
    files: [
      ...inCorpus(/^md-(?!zlibjs).*\.md$/),
      ...inCorpus(/^txt-.*\.txt$/),
      ...inCorpus(/^rst-.*\.rst$/),
      join(textFixtures, 'readme.md'),
      join(textFixtures, 'report.txt'),
    ],
  },
  {
    name: 'Arabic',
    lang: 'ar',
    files: [
      join(textFixtures, 'arabic.txt'),
      ...inCorpus(/^ocr-ar-.*\.reference\.txt$/),
      join(corpus, 'html-publican-handbook-ar.html'),
      ...readdirSync(arabicEval)
        .sort()
        .map((name) => join(arabicEval, name)),
    ],
  },
  { name: 'Japanese', lang: 'ja', files: [join(corpus, 'md-zlibjs-readme.md')] },
];

function context(fileName: string): ParseContext {
  const unused = (): never => {
    throw new Error('not used by text parsers');
  };
  return {
    fileName,
    options: DEFAULT_PARSE_OPTIONS,
    limits: DEFAULT_PARSE_LIMITS,
    signal: new AbortController().signal,
    ocr: { recognize: unused, close: async () => undefined },
    describer: { describe: unused },
  };
}

/** The prose of a block: what chunking splits into sentences and counts words of. */
function prose(block: Block): string[] {
  switch (block.type) {
    case 'heading':
      return [block.text];
    case 'paragraph':
      return block.preformatted ? [] : [block.text];
    case 'list':
      return block.items;
    default:
      return [];
  }
}

async function units(files: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const file of files) {
    const extension = /\.(md|txt|rst|html)$/.exec(file)?.[0] as '.md' | '.txt' | '.rst' | '.html';
    const document = await textParsers[extension](new Uint8Array(readFileSync(file)), context(file));
    for (const block of document.blocks) found.push(...prose(block).filter((text) => text.trim()));
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The contenders, each producing what the other does.

function icuSentences(segmenter: Intl.Segmenter): (text: string) => string[] {
  return (text) => {
    const found: string[] = [];
    for (const { segment } of segmenter.segment(text)) {
      const trimmed = segment.trim();
      if (trimmed) found.push(trimmed);
    }
    return found;
  };
}

function icuCount(segmenter: Intl.Segmenter): (text: string) => number {
  return (text) => {
    let count = 0;
    for (const segment of segmenter.segment(text)) if (segment.isWordLike) count += 1;
    return count;
  };
}

function icuWords(segmenter: Intl.Segmenter): (text: string) => string[] {
  return (text) => {
    const found: string[] = [];
    for (const { segment, isWordLike } of segmenter.segment(text)) if (isWordLike) found.push(segment);
    return found;
  };
}

// ---------------------------------------------------------------------------------------------
// Timing.

let sink = 0;

function consume(result: number | string[]): void {
  sink += typeof result === 'number' ? result : result.length;
}

/** Passes over `texts` needed for one sample of about SAMPLE_MS (after a warm-up). */
function passesFor(texts: string[], run: (text: string) => number | string[]): number {
  for (let i = 0; i < 3; i += 1) for (const text of texts) consume(run(text));
  const started = performance.now();
  let passes = 0;
  while (performance.now() - started < SAMPLE_MS / 3) {
    for (const text of texts) consume(run(text));
    passes += 1;
  }
  return Math.max(1, passes * 3);
}

interface Sample {
  cpuMs: number;
  wallMs: number;
}

function sample(texts: string[], run: (text: string) => number | string[], passes: number): Sample {
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let pass = 0; pass < passes; pass += 1) for (const text of texts) consume(run(text));
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs };
}

interface Rate {
  cpu: number;
  wall: number;
}

/** MB/s (CPU and wall medians over ROUNDS alternated samples) of `ours` and `theirs`. */
function race(
  texts: string[],
  ours: (text: string) => number | string[],
  theirs: (text: string) => number | string[],
): [Rate, Rate] {
  const megabytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0) / 1e6;
  const passes = [passesFor(texts, ours), passesFor(texts, theirs)];
  const samples: Sample[][] = [[], []];
  for (let round = 0; round < ROUNDS; round += 1) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const who of order) samples[who]!.push(sample(texts, who === 0 ? ours : theirs, passes[who]!));
  }
  return [0, 1].map((who) => ({
    cpu: (megabytes * passes[who]!) / (median(samples[who]!.map((s) => s.cpuMs)) / 1000),
    wall: (megabytes * passes[who]!) / (median(samples[who]!.map((s) => s.wallMs)) / 1000),
  })) as [Rate, Rate];
}

// ---------------------------------------------------------------------------------------------
// Quality.

const shown = (text: string): string => text.replace(/\n/g, '⏎').replace(/\t/g, '⇥');

function around(text: string, at: number, width = 32): string {
  return `…${shown(text.slice(Math.max(0, at - width), at))}⟦|⟧${shown(text.slice(at, at + width))}…`;
}

/** Where our sentences start (after the first), found back in the text. */
function ourSentenceStarts(text: string): number[] {
  const starts: number[] = [];
  let cursor = 0;
  for (const sentence of splitSentences(text)) {
    const at = text.indexOf(sentence, cursor);
    if (at > 0) starts.push(at);
    cursor = at + sentence.length;
  }
  return starts;
}

function icuSentenceStarts(segmenter: Intl.Segmenter, text: string): number[] {
  const starts: number[] = [];
  for (const { index, segment } of segmenter.segment(text)) {
    const at = index + (segment.length - segment.trimStart().length);
    if (at > 0 && at < text.length && segment.trim()) starts.push(at);
  }
  return starts;
}

const CJK_STOP = /[。！？｡]["'”’»)\]」』）】〕〉》]*\s*$/u;

function sentenceKind(text: string, at: number): string {
  const before = text.slice(0, at);
  const after = text.slice(at, at + 1);
  if (CJK_STOP.test(before)) return 'after CJK 。！？ (no space follows)';
  if (/\n\s*$/.test(before) && !/[.!?…؟۔]["'”’»)\]]*\s*$/u.test(before)) {
    return 'at a line break (no punctuation)';
  }
  if (/(?:^|[^\p{L}])\p{Lu}\.\s+$/u.test(before)) return 'after an initial ("J. Smith")';
  if (/(?:^|[^\p{L}])\p{L}{1,5}\.\s+$/u.test(before)) return 'after a short word + "." (abbreviation?)';
  if (/[.!?]["'”’»)\]]*\s+$/u.test(before) && /\p{Ll}/u.test(after)) return 'before a lower-case letter';
  if (/[.!?…؟۔]["'”’»)\]]*\s*$/u.test(before)) return 'after other terminal punctuation';
  return 'other';
}

interface Disagreements {
  total: number;
  byKind: Map<string, string[]>;
}

function tally(into: Disagreements, kind: string, example: string): void {
  into.total += 1;
  const examples = into.byKind.get(kind) ?? [];
  examples.push(example);
  into.byKind.set(kind, examples);
}

function printDisagreements(title: string, found: Disagreements): void {
  console.log(`  ${title}: ${found.total}`);
  const kinds = [...found.byKind.entries()].sort((a, b) => b[1].length - a[1].length);
  for (const [kind, examples] of kinds) {
    console.log(`    ${String(examples.length).padStart(5)}  ${kind}`);
    // Spread the examples over the list rather than the first few of one document.
    const step = Math.max(1, Math.floor(examples.length / EXAMPLES));
    for (let i = 0; i < examples.length && i / step < EXAMPLES; i += step) {
      console.log(`             ${examples[i]}`);
    }
  }
}

function compareSentences(texts: string[], segmenter: Intl.Segmenter): void {
  const oursOnly: Disagreements = { total: 0, byKind: new Map() };
  const icuOnly: Disagreements = { total: 0, byKind: new Map() };
  let ours = 0;
  let icu = 0;
  let agreed = 0;
  for (const text of texts) {
    const a = new Set(ourSentenceStarts(text));
    const b = new Set(icuSentenceStarts(segmenter, text));
    ours += a.size;
    icu += b.size;
    for (const at of a) {
      if (b.has(at)) agreed += 1;
      else tally(oursOnly, sentenceKind(text, at), around(text, at));
    }
    for (const at of b) if (!a.has(at)) tally(icuOnly, sentenceKind(text, at), around(text, at));
  }
  console.log(`  sentence boundaries inside blocks: ours ${ours}, Intl.Segmenter ${icu}, both ${agreed}`);
  printDisagreements('only ours', oursOnly);
  printDisagreements('only Intl.Segmenter', icuOnly);
}

function spans(list: Array<[number, number]>): Set<string> {
  return new Set(list.map(([start, end]) => `${start}:${end}`));
}

function wordKind(token: string): string {
  if (/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u.test(token))
    return 'Chinese/Japanese/Thai';
  if (/^[\p{L}\p{N}]+[.@/:][\p{L}\p{N}.@/:]*$/u.test(token)) return 'dotted (e.g., example.com, v1.2)';
  if (/[-‐]/u.test(token)) return 'hyphenated';
  if (/\p{N}/u.test(token) && /\p{L}/u.test(token)) return 'letters and digits';
  if (/^\p{N}/u.test(token)) return 'number';
  if (/[_]/u.test(token)) return 'underscore';
  if (/\p{M}|\p{No}/u.test(token)) return 'marks or superscripts';
  return 'other';
}

function compareWords(texts: string[], segmenter: Intl.Segmenter): void {
  const oursOnly: Disagreements = { total: 0, byKind: new Map() };
  const icuOnly: Disagreements = { total: 0, byKind: new Map() };
  let ours = 0;
  let icu = 0;
  for (const text of texts) {
    const mine: Array<[number, number]> = [];
    forEachWord(text, (start, end) => mine.push([start, end]));
    const theirs: Array<[number, number]> = [];
    for (const { index, segment, isWordLike } of segmenter.segment(text)) {
      if (isWordLike) theirs.push([index, index + segment.length]);
    }
    ours += mine.length;
    icu += theirs.length;
    const a = spans(mine);
    const b = spans(theirs);
    for (const [start, end] of mine) {
      if (!b.has(`${start}:${end}`)) {
        const token = text.slice(start, end);
        tally(oursOnly, wordKind(token), `${JSON.stringify(token)} in ${around(text, start, 20)}`);
      }
    }
    for (const [start, end] of theirs) {
      if (!a.has(`${start}:${end}`)) {
        const token = text.slice(start, end);
        tally(icuOnly, wordKind(token), `${JSON.stringify(token)} in ${around(text, start, 20)}`);
      }
    }
  }
  console.log(`  words: ours ${ours}, Intl.Segmenter ${icu} (word-like segments)`);
  printDisagreements('words only ours', oursOnly);
  printDisagreements('words only Intl.Segmenter', icuOnly);
}

/**
 * Sentences written here for the cases the fixtures lack or hold rarely (no Chinese or Thai prose
 * exists in them, and the Japanese README ends every sentence with a line break): each split both ways.
 */
const EDGE_SENTENCES: Array<[string, string]> = [
  ['en', 'We measured it, e.g. foo and bar. Then we stopped.'],
  ['en', 'Dr. Smith met Mr. Jones at 3 p.m. on Friday. They agreed.'],
  ['en', 'J. R. R. Tolkien wrote it. The U.S. edition came later.'],
  ['en', 'Pi is about 3.14 here. See example.com for more. Done!'],
  ['en', 'Was it enough? yes, mostly. The rest\nwas wrapped onto a second line.'],
  ['ar', 'هل يمكن خفض الفاقد؟ نعم! انتهى التقرير۔ شكرا.'],
  ['zh', '我们测试了系统。结果很好！下一步是什么？继续观察。'],
  ['zh', '他说：“我们走吧。”然后离开了。版本1.2已发布。'],
  ['ja', '「こんにちは。」と彼は言った。zlib.js は圧縮します。bin ディレクトリを使う。'],
  ['th', 'ภาษาไทยไม่เว้นวรรคระหว่างคำ เว้นวรรคระหว่างประโยค'],
];

const EDGE_WORDS: Array<[string, string]> = [
  ['zh', '我们测试了系统。结果很好！下一步是什么？'],
  ['ja', 'LZSSのマッチ長が閾値より低かった場合、次のByteから探す。'],
  ['th', 'ภาษาไทยไม่เว้นวรรคระหว่างคำ'],
  ['en', "The well-known plant's output rose 3.5% (see example.com, e.g. COVID-19)."],
  ['ar', 'كَتَبَ الطَّالِبُ الدَّرْسَ، والبيت؟'],
];

function printEdgeCases(): void {
  console.log('\n## Constructed cases (not from the fixtures): ours | Intl.Segmenter');
  for (const [lang, text] of EDGE_SENTENCES) {
    const icu = icuSentences(new Intl.Segmenter(lang, { granularity: 'sentence' }))(text);
    console.log(`  ${lang} ${shown(text)}`);
    console.log(`     ours: ${splitSentences(text).map(shown).join(' ‖ ')}`);
    console.log(`     Intl: ${icu.map(shown).join(' ‖ ')}`);
  }
  for (const [lang, text] of EDGE_WORDS) {
    const icu = icuWords(new Intl.Segmenter(lang, { granularity: 'word' }))(text);
    console.log(`  ${lang} ${text}`);
    console.log(`     ours: ${words(text).join(' · ')}`);
    console.log(`     Intl: ${icu.join(' · ')}`);
  }
}

// ---------------------------------------------------------------------------------------------

const rate = (value: number): string => value.toFixed(1).padStart(7);

console.log(`machine: ${machine()}`);
console.log(
  `load average (1, 5, 15 min): ${loadavg()
    .map((load) => load.toFixed(2))
    .join(', ')}`,
);
console.log(
  `ICU ${process.versions.icu}; Intl.Segmenter locales: ${Intl.Segmenter.supportedLocalesOf(['en', 'ar', 'ja', 'zh', 'th']).join(', ')}`,
);
console.log(
  `MB/s of UTF-8 text, per block, median of ${ROUNDS} alternated samples of ≥ ${SAMPLE_MS} ms (CPU time / wall time)`,
);

const quality = !process.argv.includes('--speed-only');
const speed = !process.argv.includes('--quality-only');
for (const group of groups) {
  const texts = await units(group.files);
  const bytes = texts.reduce((sum, text) => sum + Buffer.byteLength(text, 'utf8'), 0);
  const sentenceSegmenter = new Intl.Segmenter(group.lang, { granularity: 'sentence' });
  const wordSegmenter = new Intl.Segmenter(group.lang, { granularity: 'word' });
  console.log(
    `\n## ${group.name} (${group.lang}): ${group.files.length} files, ${texts.length} blocks, ${(bytes / 1e6).toFixed(3)} MB`,
  );
  if (speed) {
    const rows: Array<[string, (text: string) => number | string[], (text: string) => number | string[]]> = [
      ['sentences: splitSentences vs Intl sentence', splitSentences, icuSentences(sentenceSegmenter)],
      ['word count: countWords vs Intl word (isWordLike)', countWords, icuCount(wordSegmenter)],
      ['word list: words vs Intl word (isWordLike)', words, icuWords(wordSegmenter)],
    ];
    console.log(
      `  ${'task'.padEnd(50)} ${'ours cpu'.padStart(9)} ${'Intl cpu'.padStart(9)} ${'ratio'.padStart(7)}   ${'ours wall'.padStart(9)} ${'Intl wall'.padStart(9)} ${'ratio'.padStart(7)}`,
    );
    for (const [name, ours, theirs] of rows) {
      const [a, b] = race(texts, ours, theirs);
      console.log(
        `  ${name.padEnd(50)} ${rate(a.cpu).padStart(9)} ${rate(b.cpu).padStart(9)} ${(a.cpu / b.cpu).toFixed(1).padStart(6)}×   ${rate(a.wall).padStart(9)} ${rate(b.wall).padStart(9)} ${(a.wall / b.wall).toFixed(1).padStart(6)}×`,
      );
    }
  }
  if (quality) {
    compareSentences(texts, sentenceSegmenter);
    compareWords(texts, wordSegmenter);
  }
}
if (quality) printEdgeCases();
if (sink === -1) console.log(sink);
