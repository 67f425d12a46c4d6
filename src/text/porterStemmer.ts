/**
 * The Porter stemmer exactly as SQLite's FTS5 `porter` tokenizer applies it (ext/fts5/fts5_tokenize.c,
 * Porter's 1980 algorithm with the later `logi`/`bli` rules), so that a read store which stems in
 * code finds what the embedded store's full-text index finds: "configuring", "configured" and
 * "configures" all become "configur".
 *
 * FTS5 works on the token's UTF-8 bytes: a byte outside a–z is a consonant, tokens shorter than 3 or
 * longer than 64 bytes pass unchanged, and only ASCII suffixes are ever removed. A token with other
 * characters is therefore stemmed here over its bytes too (as a Latin-1 string), so that mixed
 * tokens come out as FTS5 makes them; a token of Arabic letters alone never changes.
 */

interface Rule {
  suffix: string;
  replacement: string;
  /** Condition on the stem left once the suffix is removed. */
  when: (stem: string) => boolean;
}

const MAX_TOKEN_BYTES = 64;

function isVowel(char: string | undefined, yIsVowel: boolean): boolean {
  return (
    char === 'a' || char === 'e' || char === 'i' || char === 'o' || char === 'u' || (yIsVowel && char === 'y')
  );
}

/** Skips a run of consonants then vowels then one consonant: the end of one VC, or 0 when none. */
function gobbleVC(stem: string, from: number, previousIsConsonant: boolean): number {
  let consonant = previousIsConsonant;
  let i = from;
  for (; i < stem.length; i += 1) {
    consonant = !isVowel(stem[i], consonant);
    if (!consonant) break;
  }
  for (i += 1; i < stem.length; i += 1) {
    consonant = !isVowel(stem[i], consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

/** m > 0 */
const measureAbove0 = (stem: string): boolean => gobbleVC(stem, 0, false) !== 0;

/** m > 1 */
function measureAbove1(stem: string): boolean {
  const n = gobbleVC(stem, 0, false);
  return n !== 0 && gobbleVC(stem, n, true) !== 0;
}

/** m = 1 */
function measureIs1(stem: string): boolean {
  const n = gobbleVC(stem, 0, false);
  return n !== 0 && gobbleVC(stem, n, true) === 0;
}

/** *o: ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(stem: string): boolean {
  const last = stem[stem.length - 1];
  if (last === 'w' || last === 'x' || last === 'y') return false;
  let mask = 0;
  let consonant = false;
  for (const char of stem) {
    consonant = !isVowel(char, consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 0x7;
  }
  return mask === 0b101;
}

/** *v*: the stem has a vowel (y counts after the first letter). */
function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i += 1) if (isVowel(stem[i], i > 0)) return true;
  return false;
}

const always = (): boolean => true;
const rule = (suffix: string, replacement: string, when: (stem: string) => boolean): Rule => ({
  suffix,
  replacement,
  when,
});

const STEP_2: readonly Rule[] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['logi', 'log'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
].map(([suffix, replacement]) => rule(suffix!, replacement!, measureAbove0));

const STEP_3: readonly Rule[] = [
  ['ical', 'ic'],
  ['ness', ''],
  ['icate', 'ic'],
  ['iciti', 'ic'],
  ['ful', ''],
  ['ative', ''],
  ['alize', 'al'],
].map(([suffix, replacement]) => rule(suffix!, replacement!, measureAbove0));

const STEP_4: readonly Rule[] = [
  ...['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent'].map((suffix) =>
    rule(suffix, '', measureAbove1),
  ),
  rule('ion', '', (stem) => (stem.endsWith('s') || stem.endsWith('t')) && measureAbove1(stem)),
  ...['ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'].map((suffix) => rule(suffix, '', measureAbove1)),
];

const STEP_1B2: readonly Rule[] = [
  rule('at', 'ate', always),
  rule('bl', 'ble', always),
  rule('iz', 'ize', always),
];

/**
 * The first rule whose suffix ends the word (and leaves a stem of at least one letter) decides: when
 * its condition fails, no later rule is tried. FTS5 groups the rules by the word's next-to-last
 * letter, which every suffix that can match shares, so one ordered list per step is the same.
 */
function applyFirst(word: string, rules: readonly Rule[]): { word: string; applied: boolean } {
  for (const { suffix, replacement, when } of rules) {
    if (word.length <= suffix.length || !word.endsWith(suffix)) continue;
    const stem = word.slice(0, word.length - suffix.length);
    return when(stem) ? { word: stem + replacement, applied: true } : { word, applied: false };
  }
  return { word, applied: false };
}

function stemBytes(token: string): string {
  let word = token;
  // Step 1a.
  if (word.endsWith('s')) {
    if (word[word.length - 2] === 'e') {
      const n = word.length;
      if ((n > 4 && word[n - 4] === 's' && word[n - 3] === 's') || (n > 3 && word[n - 3] === 'i'))
        word = word.slice(0, -2);
      else word = word.slice(0, -1);
    } else if (word[word.length - 2] !== 's') word = word.slice(0, -1);
  }
  // Step 1b: "eed" → "ee" does not go on to the clean-up below; removing "ed" or "ing" does.
  let removed = false;
  if (word.length > 3 && word.endsWith('eed')) {
    if (measureAbove0(word.slice(0, -3))) word = word.slice(0, -1);
  } else {
    const suffix = word.endsWith('ed') ? 'ed' : word.endsWith('ing') ? 'ing' : null;
    if (suffix && word.length > suffix.length && hasVowel(word.slice(0, -suffix.length))) {
      word = word.slice(0, -suffix.length);
      removed = true;
    }
  }
  if (removed) {
    const step1b2 = applyFirst(word, STEP_1B2);
    word = step1b2.word;
    if (!step1b2.applied) {
      const last = word[word.length - 1];
      if (
        !isVowel(last, false) &&
        last !== 'l' &&
        last !== 's' &&
        last !== 'z' &&
        last === word[word.length - 2]
      )
        word = word.slice(0, -1);
      else if (measureIs1(word) && endsCvc(word)) word += 'e';
    }
  }
  // Step 1c.
  if (word.endsWith('y') && hasVowel(word.slice(0, -1))) word = `${word.slice(0, -1)}i`;
  word = applyFirst(word, STEP_2).word;
  word = applyFirst(word, STEP_3).word;
  word = applyFirst(word, STEP_4).word;
  // Step 5a.
  if (word.endsWith('e')) {
    const stem = word.slice(0, -1);
    if (measureAbove1(stem) || (measureIs1(stem) && !endsCvc(stem))) word = stem;
  }
  // Step 5b.
  if (word.length > 1 && word.endsWith('ll') && measureAbove1(word.slice(0, -1))) word = word.slice(0, -1);
  return word;
}

/** The stem FTS5's porter tokenizer indexes for one lower-case token. */
export function porterStem(token: string): string {
  if (!/[^\p{ASCII}]/u.test(token)) {
    return token.length < 3 || token.length > MAX_TOKEN_BYTES ? token : stemBytes(token);
  }
  const bytes = Buffer.from(token, 'utf8');
  if (bytes.length < 3 || bytes.length > MAX_TOKEN_BYTES) return token;
  const stemmed = stemBytes(bytes.toString('latin1'));
  return stemmed === bytes.toString('latin1') ? token : Buffer.from(stemmed, 'latin1').toString('utf8');
}
