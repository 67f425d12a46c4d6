export { cleanDocument, cleanBlocks, type CleanOptions } from './cleanDocument.js';
export { normalizeForIndex, normalizeArabicLetters } from './normalize.js';
export { detectLanguage, detectDocumentLanguage } from './language.js';
export { countWords, words, splitByWords } from './words.js';
export { splitSentences, sentenceStarts } from './sentences.js';
export { removeUrls } from './urls.js';
export {
  repairLamAlef,
  showsReversedLamAlef,
  resolvePresentationForms,
  resolveLamAlefLigatures,
  removeTatweel,
} from './arabic.js';
export { tidyText } from './whitespace.js';
