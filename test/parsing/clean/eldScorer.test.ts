import { expect } from 'chai';
import { eld } from 'eld/extrasmall';
import { readFileSync } from 'node:fs';
import { ELD_NGRAMS_URL, eldReliableLanguage, readNgrams } from '../../../src/parsing/clean/eldScorer.js';
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

describe("eld's n-gram database, read from its module's text", () => {
  it('holds every n-gram of the module with its languages and weights', async () => {
    const { ngramsData } = (await import(ELD_NGRAMS_URL.href)) as {
      ngramsData: { languages: Record<string, string>; ngrams: Record<string, Record<string, number>> };
    };
    const read = readNgrams(readFileSync(ELD_NGRAMS_URL, 'utf8'));
    expect(read.codes).to.deep.equal(Object.values(ngramsData.languages));
    const ngrams = Object.entries(ngramsData.ngrams);
    expect(ngrams.length).to.be.greaterThan(40_000);
    expect(read.numberOf.size).to.equal(ngrams.length);
    // Keys written with escapes in the module (a quote, a backslash) are among them.
    expect(ngrams.some(([ngram]) => ngram.includes("'"))).to.equal(true);
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

  it('refuses a module of another shape instead of reading part of it', () => {
    const good =
      "export const ngramsData = {type:'XS60',languages:{0:'am',1:'ar'},isSubset:false,ngrams:{' ab':{0:12},cd:{1:3,0:4}}};";
    const read = readNgrams(good);
    expect(read.codes).to.deep.equal(['am', 'ar']);
    expect([...read.numberOf]).to.deep.equal([
      [' ab', 0],
      ['cd', 1],
    ]);
    for (const changed of [
      good.replace('{0:12}', '{0:"12"}'),
      good.replace('{0:12}', '{0:1.5}'),
      good.replace("' ab'", '" ab"'),
      good.replace("' ab'", "'a\\nb'"),
      good.replace('ngrams:', 'grams:'),
      good.replace("1:'ar'", "2:'ar'"),
      good.slice(0, -5),
    ]) {
      expect(() => readNgrams(changed), changed).to.throw(/unexpected shape/);
    }
  });
});
