/**
 * `npm run eval:parsing`: parses every document of the real-document corpus (test/corpus/real)
 * and prints, per document and in total, heading recall / precision / level accuracy, table count and
 * cell recall, text recall, noise (navigation, running headers) removed and OCR character error rate.
 * `-- --only REGEX` limits it to matching ids; `-- --dump ID` prints what the pipeline made of one
 * document (for writing and checking expectations); `-- --corpus heldout` scores the held-out corpus
 * (test/corpus/heldout) instead.
 */
import { documentText } from './score.js';
import {
  CORPUS,
  evaluateCorpus,
  HELD_OUT_CORPUS,
  loadCorpus,
  parseCorpusFile,
  totals,
  type DocumentResult,
} from './evaluate.js';
import { createTesseractOcr } from '../../src/parsing/ocr/tesseractOcr.js';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};

const corpusName = flag('--corpus') ?? 'real';
if (corpusName !== 'real' && corpusName !== 'heldout') {
  console.error(`--corpus is real or heldout, not ${corpusName}`);
  process.exit(2);
}
const corpus = corpusName === 'heldout' ? HELD_OUT_CORPUS : CORPUS;

const dump = flag('--dump');
if (dump) {
  const entry = loadCorpus({ strict: false, corpus }).find((candidate) => candidate.id === dump);
  const file = entry?.file ?? dump;
  const ocr = createTesseractOcr({ workers: 1 });
  const never = (): Promise<never> => Promise.reject(new Error('not used'));
  const document = await parseCorpusFile(
    file,
    { ocr, describer: { describe: never }, summarizer: { summarize: never } },
    corpus,
  );
  await ocr.close();
  for (const block of document.blocks) {
    if (block.type === 'heading') console.log(`H${block.level} ${block.text}`);
    else if (block.type === 'table')
      console.log(
        `TABLE ${block.table.cells.length}x${block.table.cells[0]?.length ?? 0} ${JSON.stringify(block.table.cells.slice(0, 2))}`,
      );
  }
  if (args.includes('--text')) console.log(documentText(document.blocks));
  process.exit(0);
}

const only = flag('--only');
const started = performance.now();
const results = await evaluateCorpus({ corpus, ...(only ? { filter: new RegExp(only) } : {}) });
const seconds = (performance.now() - started) / 1000;
print(results);
const total = totals(results);
console.log(`\n${total.documents} documents in ${seconds.toFixed(1)} s, ${total.failed} failed to parse`);
console.log(`| measure | value |\n|---|---|`);
const pct = (value: number): string => `${(value * 100).toFixed(1)} %`;
console.log(`| heading recall | ${pct(total.headingRecall)} |`);
console.log(`| heading precision | ${pct(total.headingPrecision)} |`);
console.log(`| heading level accuracy (of found) | ${pct(total.headingLevelAccuracy)} |`);
console.log(`| table count exact (documents) | ${pct(total.tableCountAccuracy)} |`);
console.log(`| table cell recall | ${pct(total.cellRecall)} |`);
console.log(`| text recall | ${pct(total.textRecall)} |`);
console.log(`| noise removed | ${pct(total.noiseRemoved)} |`);
console.log(`| OCR CER, all pages | ${total.ocrCer.toFixed(3)} |`);
console.log(
  `| OCR CER, Arabic and mixed pages (worst page) | ${total.arabicOcrCer.toFixed(3)} (${total.maxArabicOcrCer.toFixed(3)}) |`,
);
for (const result of results) if (result.error) console.log(`ERROR ${result.entry.id}: ${result.error}`);

function print(rows: readonly DocumentResult[]): void {
  console.log(
    '| document | headings found/expected (level ok) | extra headings | tables found/expected | cells | text | noise gone | OCR CER | ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const { entry, score, ms } of rows) {
    const h = score.headings;
    const cells = [
      entry.id,
      h ? `${h.matched}/${h.expected} (${h.rightLevel})` : '',
      h ? String(h.found - h.matched) : '',
      score.tables ? `${score.tables.found}/${score.tables.expected}` : '',
      score.tables?.cells ? `${score.tables.cellsFound}/${score.tables.cells}` : '',
      score.text ? `${score.text.found}/${score.text.expected}` : '',
      score.absent ? `${score.absent.clean}/${score.absent.expected}` : '',
      score.ocr ? score.ocr.cer.toFixed(3) : '',
      ms.toFixed(0),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
}
