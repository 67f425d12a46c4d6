import { expect } from 'chai';
import { eld } from 'eld/extrasmall';
import { eldReliableLanguage } from '../../../src/parsing/clean/eldScorer.js';
import { randomTexts, realTexts } from './textSamples.js';

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
