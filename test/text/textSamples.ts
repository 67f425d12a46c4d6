import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seeded } from '../support/seededRandom.js';

/**
 * Real text for tests that hold a fast scanner to its reference: the retrieval corpus (English and
 * Arabic HTML, markup included) and the READMEs of the installed packages (Markdown in many hands).
 */
export function realTexts(): string[] {
  const corpus = join('eval', 'retrieval', 'corpus');
  const pages = readdirSync(corpus).flatMap((language) =>
    readdirSync(join(corpus, language))
      .sort()
      .map((name) => readFileSync(join(corpus, language, name), 'utf8')),
  );
  const readmes = readdirSync('node_modules')
    .sort()
    .flatMap((name) => {
      try {
        return [readFileSync(join('node_modules', name, 'README.md'), 'utf8')];
      } catch {
        return [];
      }
    });
  return [...pages, ...readmes];
}

// Characters at the edges of the word and language rules: ASCII, apostrophes and hyphens, Latin
// with combining accents, Arabic letters, harakat and digits, Devanagari vowel signs, CJK, other
// numbers (², Ⅻ), astral letters and digits, an emoji, lone surrogates, invisible format characters.
const EDGES = [
  ..."aZq09 .,:/-'’`_#|\n\t",
  'é',
  '\u0301',
  'ß',
  'ك',
  'ت',
  '\u064b',
  '\u0661',
  'क',
  '\u093f',
  '中',
  '²',
  'Ⅻ',
  '\u{1d400}',
  '\u{1d7cf}',
  '\u{1f600}',
  '\ud800',
  '\udc00',
  '\u200d',
  '\u00ad',
];

/** `count` random strings of up to `maxLength` code points: edge characters and any code point. */
export function randomTexts(seed: number, count: number, maxLength: number): string[] {
  const random = seeded(seed);
  const texts: string[] = [];
  for (let n = 0; n < count; n += 1) {
    let text = '';
    const length = Math.floor(random() * maxLength);
    for (let i = 0; i < length; i += 1) {
      text +=
        random() < 0.8
          ? (EDGES[Math.floor(random() * EDGES.length)] ?? '')
          : String.fromCodePoint(Math.floor(random() * 0x30000));
    }
    texts.push(text);
  }
  return texts;
}
