import { expect } from 'chai';
import { eld } from 'eld/extrasmall';
import { readFileSync, writeFileSync } from 'node:fs';
import { eldReliableLanguage, readNgrams } from '../../../src/parsing/clean/eldScorer.js';
import * as vendored from '../../../src/vendor/eld/extrasmall.js';
import { randomTexts, realTexts } from '../../text/textSamples.js';

/** What language.ts used to ask eld itself. */
function eldAnswer(text: string): string | null {
  const result = eld.detect(text);
  return result.language && result.isReliable() ? result.language : null;
}

/** Windows of `size` words as language.ts builds them (words joined by spaces). */
function windows(text: string, size: number): string[] {
  const tokens = text.match(/\p{L}[\p{L}\p{M}'’-]*/gu) ?? [];
  const found: string[] = [];
  for (let i = 0; i < tokens.length; i += size) found.push(tokens.slice(i, i + size).join(' '));
  return found;
}

describe('eldReliableLanguage', () => {
  it('answers as eld does on windows of real English, Arabic and Markdown text', () => {
    const samples = realTexts().flatMap((text) => windows(text, 40));
    expect(samples.length).to.be.greaterThan(5000);
    const answers = new Set<string | null>();
    for (const sample of samples) {
      const expected = eldAnswer(sample);
      answers.add(expected);
      expect(eldReliableLanguage(sample), sample).to.equal(expected);
    }
    // Both outcomes and several languages were met: the comparison said something.
    expect(answers).to.include.members([null, 'en', 'ar']);
  });

  it('answers as eld does on raw text, long words and random Unicode', () => {
    const samples = [
      ...realTexts()
        .slice(0, 200)
        .map((text) => text.slice(0, 1500)),
      // Words past eld's 70-byte cap (whose last n-gram runs to the end of the word).
      'die rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetzbuchverlagsanstaltsdirektorin',
      'und der donaudampfschifffahrtselektrizitätenhauptbetriebswerkbauunterbeamtengesellschaft',
      `في ${'والمستشفيات'.repeat(5)} الكبيرة`,
      ...randomTexts(2, 3000, 120),
    ];
    for (const sample of samples) expect(eldReliableLanguage(sample), sample).to.equal(eldAnswer(sample));
  });
});

/**
 * The eld package installed here, as its modules hold it. The product reads only the vendored copy;
 * this check, which keeps that copy equal to its source and rewrites it on a refresh, is the one
 * place that reads eld's files by their place in the package (next to its public entry).
 */
interface InstalledEld {
  version: string;
  dictionary: string[];
  separators: RegExp;
  avgScore: Record<string, number>;
  ngramsData: {
    type: string;
    languages: Record<string, string>;
    isSubset: boolean;
    ngrams: Record<string, Record<string, number>>;
  };
}

async function installedEld(): Promise<InstalledEld> {
  // The public entry is src/entries/dynamic.js; the data modules are in src and src/ngrams.
  const source = new URL('../', import.meta.resolve('eld'));
  const load = async <T>(path: string): Promise<T> => (await import(new URL(path, source).href)) as T;
  const [{ dictionary }, { separators }, { avgScore }, { ngramsData }] = await Promise.all([
    load<Pick<InstalledEld, 'dictionary'>>('dictionary.js'),
    load<Pick<InstalledEld, 'separators'>>('regexPatterns.js'),
    load<Pick<InstalledEld, 'avgScore'>>('avgScore.js'),
    load<Pick<InstalledEld, 'ngramsData'>>('ngrams/extrasmall.js'),
  ]);
  const { version } = JSON.parse(readFileSync(new URL('../package.json', source), 'utf8')) as {
    version: string;
  };
  return { version, dictionary, separators, avgScore, ngramsData };
}

const VENDORED_MODULE = new URL('../../../src/vendor/eld/extrasmall.ts', import.meta.url);

/** A string literal in single quotes, with everything outside printable ASCII as `\uXXXX`. */
function quoted(text: string): string {
  return `'${text.replace(/[\\']|[^\x20-\x7e]/g, (char) =>
    char === '\\' || char === "'" ? `\\${char}` : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  )}'`;
}

/** `items` joined by ', ' on lines of at most `width` characters after `indent`. */
function wrapped(items: string[], indent: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const item of items) {
    if (line !== '' && line.length + item.length + 2 > width) {
      lines.push(`${indent}${line},`);
      line = '';
    }
    line += (line === '' ? '' : ', ') + item;
  }
  return [...lines, `${indent}${line},`].join('\n');
}

/**
 * src/vendor/eld/extrasmall.ts as `eld` gives it: the same data in another form (README.md there).
 * Throws where the data would not survive the form (a key with a tab, a line break, a backslash or a
 * backquote; a dictionary entry that is not one character; languages not numbered 0, 1, 2, …).
 */
function vendoredModule({ version, dictionary, separators, avgScore, ngramsData }: InstalledEld): string {
  const refuse = (what: string): never => {
    throw new Error(`eld ${version} does not fit the vendored form: ${what}`);
  };
  if (dictionary.length !== 256 || dictionary.some((char) => char.length !== 1)) refuse('dictionary');
  const languages = Object.entries(ngramsData.languages).map(([number, code], i) =>
    number === String(i) && /^[a-z]+$/.test(code) ? code : refuse(`language ${number}`),
  );
  if (ngramsData.isSubset !== false) refuse('a subset database');
  const lines = Object.entries(ngramsData.ngrams).map(([ngram, weights]) => {
    if (ngram === '' || /[\t\n\r\\`]/.test(ngram)) refuse(`n-gram ${JSON.stringify(ngram)}`);
    const pairs = Object.entries(weights).map(([language, weight]) =>
      Number(language) < languages.length && Number.isInteger(weight) && weight >= 0
        ? `${language}:${weight}`
        : refuse(`weights of ${JSON.stringify(ngram)}`),
    );
    // A template literal: `${` must not start a substitution.
    return `${ngram.replaceAll('${', '$\\{')}\t${pairs.join(',')}\n`;
  });
  const dictionaryLines: string[] = [];
  for (let byte = 0; byte < 256; byte += 16)
    dictionaryLines.push(
      `  '${dictionary
        .slice(byte, byte + 16)
        .join('')
        .replace(/[\\']/g, '\\$&')}' + // 0x${byte.toString(16)}`,
    );
  const averages = Object.entries(avgScore).map(([code, score]) => `${code}: ${score}`);
  return `/*
 * eld ${version}'s extra-small n-gram database (${ngramsData.type}) and the tables its detector reads,
 * vendored from the npm package eld (https://github.com/nitotm/efficient-language-detector-js):
 * src/ngrams/extrasmall.js, src/dictionary.js, src/regexPatterns.js (separators) and src/avgScore.js.
 *
 * Copyright 2023 Nito T.M. (https://github.com/nitotm)
 * Licensed under the Apache License, Version 2.0 (the "License"): src/vendor/eld/LICENSE, or
 * http://www.apache.org/licenses/LICENSE-2.0. Distributed on an "AS IS" BASIS, WITHOUT WARRANTIES
 * OR CONDITIONS OF ANY KIND, either express or implied.
 *
 * Changed by the Archivist project: eld's four modules converted into this one, with the same
 * values in another form (n-grams as text, one a line; the dictionary as one string; the separator
 * regex by its source). Written by test/parsing/clean/eldScorer.test.ts: do not edit, see README.md.
 */

/** The eld release this was taken from. */
export const ELD_VERSION = '${version}';
/** The database's type, as \`eld.info()['Data type']\` gives it. */
export const DATABASE_TYPE = '${ngramsData.type}';

/** The ISO 639-1 code of each language number (as in \`ngrams\`). */
export const languages: readonly string[] = [
${wrapped(
  languages.map((code) => `'${code}'`),
  '  ',
)}
];

/** The character eld writes each byte as in n-grams (bytes that are never in one are spaces). */
export const dictionary =
${dictionaryLines.join('\n').replace(/ \+ (\/\/ 0xf0)$/, '; $1')}

/** Runs of what is not a letter, which eld turns into a space before reading words. */
export const separators = new RegExp(
  ${quoted(separators.source)},
  '${separators.flags}',
);

/** Each language's average score in a correct detection, which \`isReliable()\` compares with. */
export const avgScore: Readonly<Record<string, number>> = {
${wrapped(averages, '  ')}
};

/**
 * The n-grams, one a line: the n-gram (one dictionary character per byte), a tab, then
 * \`language:weight\` pairs joined by commas, the weights less eld's floor of 53 as eld stores them.
 */
export const ngrams = \`${lines.join('')}\`;
`;
}

describe('the vendored copy of eld (src/vendor/eld)', () => {
  let installed: InstalledEld;
  before(async () => {
    installed = await installedEld();
  });

  it('is what the eld installed here converts to (ELD_VENDOR_REFRESH=1 rewrites it)', () => {
    const expected = vendoredModule(installed);
    // Latin-1 only, V8 holds the module's source (kept for its lifetime) at one byte a character.
    expect(/[^\0-\xff]/.exec(expected)?.[0]).to.equal(undefined);
    if (process.env['ELD_VENDOR_REFRESH'] === '1') writeFileSync(VENDORED_MODULE, expected);
    const same = readFileSync(VENDORED_MODULE, 'utf8') === expected;
    expect(same, `src/vendor/eld/extrasmall.ts differs from eld ${installed.version}'s data`).to.equal(true);
    expect(vendored.ELD_VERSION).to.equal(installed.version);
  });

  it('holds the values of eld’s modules', () => {
    expect([...vendored.dictionary]).to.deep.equal(installed.dictionary);
    expect([vendored.separators.source, vendored.separators.flags]).to.deep.equal([
      installed.separators.source,
      installed.separators.flags,
    ]);
    expect(vendored.avgScore).to.deep.equal(installed.avgScore);
    expect(vendored.languages).to.deep.equal(Object.values(installed.ngramsData.languages));
  });

  it('is the database eld’s public entry detects with', () => {
    const info = eld.info();
    expect(info['Data type']).to.equal(vendored.DATABASE_TYPE);
    expect(Object.values(info.Languages)).to.deep.equal(vendored.languages);
  });
});

describe('readNgrams, the vendored n-gram text', () => {
  it('holds every n-gram of eld’s module with its languages and weights', async () => {
    const { ngramsData } = await installedEld();
    const read = readNgrams(vendored.ngrams, vendored.languages.length);
    const ngrams = Object.entries(ngramsData.ngrams);
    expect(ngrams.length).to.be.greaterThan(40_000);
    expect(read.numberOf.size).to.equal(ngrams.length);
    // N-grams with a quote, a `$` and a `{` (which the template literal holds as they are) are among them.
    for (const char of ["'", '$', '{'])
      expect(
        ngrams.some(([ngram]) => ngram.includes(char)),
        char,
      ).to.equal(true);
    for (const [ngram, byLanguage] of ngrams) {
      const number = read.numberOf.get(ngram);
      expect(number, ngram).to.be.a('number');
      const pairs = Array.from(read.pairs.subarray(read.starts[number!], read.starts[number! + 1]));
      // Stored as eld stores them less its floor of 53, which the scorer adds back.
      expect(pairs, ngram).to.deep.equal(
        Object.entries(byLanguage).flatMap(([language, weight]) => [Number(language), weight + 53]),
      );
    }
  });

  it('refuses text of another shape instead of reading part of it', () => {
    const good = " ab\t0:12\ncd\t1:3,0:4\n'$\t1:7\n";
    const read = readNgrams(good, 2);
    expect([...read.numberOf]).to.deep.equal([
      [' ab', 0],
      ['cd', 1],
      ["'$", 2],
    ]);
    expect(Array.from(read.starts)).to.deep.equal([0, 2, 6, 8]);
    expect(Array.from(read.pairs)).to.deep.equal([0, 65, 1, 56, 0, 57, 1, 60]);
    for (const changed of [
      good.replace('0:12', '0:"12"'),
      good.replace('0:12', '0:1.5'),
      good.replace('0:12', '0:'),
      good.replace('0:12', '0:12,'),
      good.replace('0:12', '2:12'),
      good.replace(' ab\t', ' ab '),
      good.replace(' ab\t', '\t'),
      good.replace('cd', ' ab'),
      good.replace('\ncd', '\n\ncd'),
      good.slice(0, -1),
      '',
    ]) {
      expect(() => readNgrams(changed, 2), JSON.stringify(changed)).to.throw(/unexpected shape/);
    }
  });
});
