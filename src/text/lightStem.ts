/**
 * A light stemmer for matching, not linguistics: English inflections (plural, -ing, -ed, -ly…) and
 * Arabic clitics (the article ال, conjunctions و ف, prepositions ب ل ك, plural and feminine endings)
 * come off, so "indexes"/"indexing"/"indexed" and "المكتبة"/"مكتبات" meet. Short words stay whole.
 */
const ENGLISH_SUFFIXES = [
  'ational',
  'ization',
  'fulness',
  'ements',
  'ement',
  'ments',
  'ment',
  'ings',
  'ing',
  'edly',
  'ies',
  'ied',
  'ed',
  'es',
  'ly',
  's',
];
const ARABIC_PREFIXES = ['وال', 'فال', 'بال', 'كال', 'لل', 'ال', 'و', 'ف', 'ب', 'ل'];
const ARABIC_SUFFIXES = ['ات', 'ون', 'ين', 'ان', 'ها', 'هم', 'ه', 'ي'];

function stemEnglish(word: string): string {
  for (const suffix of ENGLISH_SUFFIXES) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length);
      return suffix === 'ies' || suffix === 'ied' ? `${stem}y` : stem;
    }
  }
  return word;
}

function stemArabic(word: string): string {
  let stem = word;
  for (const prefix of ARABIC_PREFIXES) {
    if (stem.length - prefix.length >= 3 && stem.startsWith(prefix)) {
      stem = stem.slice(prefix.length);
      break;
    }
  }
  for (const suffix of ARABIC_SUFFIXES) {
    if (stem.length - suffix.length >= 3 && stem.endsWith(suffix)) {
      stem = stem.slice(0, -suffix.length);
      break;
    }
  }
  return stem;
}

/** The stem of one normalised (lower-case, Arabic-normalised) word. */
export function lightStem(word: string): string {
  if (/[\u0600-\u06FF]/.test(word)) return stemArabic(word);
  if (/^[a-z]+$/.test(word)) return stemEnglish(word);
  return word;
}
