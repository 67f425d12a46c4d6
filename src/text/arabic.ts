/**
 * Arabic display repairs: presentation forms back to letters, tatweel removed, and the lam-alef
 * ligature mangled by PDF text extraction put back in order.
 *
 * Why the ligature breaks: Arabic shaping always draws lam followed by an alef (ا أ إ آ) as one
 * ligature glyph, and the PDF maps that glyph back to the two letters. Extractors turn visual order
 * into logical order by reversing each right-to-left run, and the two-letter mapping of the ligature
 * gets reversed too, so "لا" comes out as "ال" (the same report against pdfminer.six #850, pypdf
 * #1589, PyMuPDF #2199). What pdfjs 5 gives for PDFs made by LibreOffice depends on the font
 * (measured, see test/parsing/clean/lamAlef.test.ts): DejaVu Sans and Noto Sans Arabic reverse every
 * lam-alef ("السالم" for "السلام"); Noto Naskh Arabic splits the isolated form ("ل ا" for "لا") and
 * reverses the Allah ligature ("اهلل"); Noto Kufi Arabic reverses the connected form and "الله" as a
 * whole ("هللا"). Fonts whose ToUnicode maps to presentation forms give U+FEF5–U+FEFC, in order.
 *
 * What can be repaired without a dictionary, and is (each pattern never occurs in correct Arabic):
 * - two alef letters in a row, the second followed by lam ("االشتراك", "واألمان", "إال") → alef, lam,
 *   alef ("الاشتراك", "والأمان", "إلا"): the article or an alef followed by a reversed ligature;
 *   repeated, since each repair can expose the next ("اآلالت" → "الآالت" → "الآلات");
 * - a word-final lam split from a lone alef ("ل ا", "إل ا") → joined ("لا", "إلا");
 * - the reversed Allah ligature: "اهلل" → "الله" (also after و ف ب ك), a word "هللا" → "الله";
 * - when the document as a whole shows the reversal (such patterns found and no lam-alef in correct
 *   order anywhere), the lone word "ال" (optionally with و or ف) → "لا", and the words "هلل" → "لله".
 * What cannot: a reversed ligature inside a word after a joining letter ("السالم" for "السلام",
 * "الطالب" for "الطلاب") reads exactly like a correct word ("سالم", "الطالب", "قال"), so it stays.
 */

const PRESENTATION_FORMS = /[\uFB50-\uFDFF\uFE70-\uFEFE]+/g;
const LAM_ALEF_LIGATURES = /[\uFEF5-\uFEFC]/g;
const TATWEEL = /\u0640/g;

const DOUBLE_ALEF_LAM = /([اأإآ])([اأإآ])ل/g;
const HAS_DOUBLE_ALEF_LAM = /[اأإآ][اأإآ]ل/;
const SPLIT_LAM_ALEF = /ل[ \t]+([اأإآ])(?![\p{L}\p{M}])/gu;
const REVERSED_ALLAH = /اهلل/g;
const REVERSED_ALLAH_WORD = /(?<![\p{L}\p{M}])([وفبك]?)هللا(?![\p{L}\p{M}])/gu;
const LONE_REVERSED_LA = /(?<![\p{L}\p{M}])([وف]?)ال(?![\p{L}\p{M}])/gu;
const LONE_REVERSED_LILLAH = /(?<![\p{L}\p{M}])([وف]?)هلل(?![\p{L}\p{M}])/gu;
const LAM_ALEF_IN_ORDER = /ل[اأإآ]/g;

/** Maps Arabic presentation forms (U+FB50–U+FDFF, U+FE70–U+FEFE) to letters by NFKC, nothing else. */
export function resolvePresentationForms(text: string): string {
  return text.replace(PRESENTATION_FORMS, (forms) => forms.normalize('NFKC'));
}

/** Decomposes the lam-alef ligature presentation forms (U+FEF5–U+FEFC) into lam + alef, in that order. */
export function resolveLamAlefLigatures(text: string): string {
  return text.replace(LAM_ALEF_LIGATURES, (form) => form.normalize('NFKC'));
}

/** Removes tatweel (kashida, U+0640), which stretches words without changing them. */
export function removeTatweel(text: string): string {
  return text.replace(TATWEEL, '');
}

/**
 * Evidence, over a whole document, that its lam-alef ligatures were extracted reversed: patterns only
 * a reversal produces outnumber lam-alef sequences in correct order.
 */
export function showsReversedLamAlef(texts: Iterable<string>): boolean {
  let reversed = 0;
  let inOrder = 0;
  for (const text of texts) {
    if (!text.includes('ل')) continue;
    reversed += count(text, DOUBLE_ALEF_LAM) + count(text, LONE_REVERSED_LA) + count(text, REVERSED_ALLAH);
    inOrder += count(text, LAM_ALEF_IN_ORDER);
  }
  return reversed > 0 && reversed > inOrder;
}

/**
 * Repairs the lam-alef ligature order in `text` (see the module comment). `reversedDocument` turns on
 * the repairs that are only safe when the document is known to be affected (`showsReversedLamAlef`).
 */
export function repairLamAlef(text: string, options: { reversedDocument: boolean }): string {
  if (!text.includes('ل') && !/[\uFEF5-\uFEFC]/.test(text)) return text;
  let repaired = resolveLamAlefLigatures(text)
    .replace(SPLIT_LAM_ALEF, 'ل$1')
    .replace(REVERSED_ALLAH, 'الله')
    .replace(REVERSED_ALLAH_WORD, '$1الله');
  // Repeated: repairing "اآلالت" to "الآالت" exposes the next pair ("آال" → "آلا"): "الآلات".
  for (let round = 0; round < 4 && HAS_DOUBLE_ALEF_LAM.test(repaired); round += 1) {
    repaired = repaired.replace(DOUBLE_ALEF_LAM, '$1ل$2');
  }
  if (options.reversedDocument) {
    repaired = repaired.replace(LONE_REVERSED_LA, '$1لا').replace(LONE_REVERSED_LILLAH, '$1لله');
  }
  return repaired;
}

function count(text: string, pattern: RegExp): number {
  pattern.lastIndex = 0;
  let n = 0;
  while (pattern.exec(text) !== null) n += 1;
  return n;
}
