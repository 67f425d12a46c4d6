import sharp from 'sharp';
import Tesseract from 'tesseract.js';
import type { OcrResult } from '../context.js';

/** `3` automatic layout, `4` one column, `6` one uniform block, `11` sparse text. */
export type PageSegMode = '3' | '4' | '6' | '11';

export const PSM_BY_MODE: Record<PageSegMode, Tesseract.PSM> = {
  '3': Tesseract.PSM.AUTO,
  '4': Tesseract.PSM.SINGLE_COLUMN,
  '6': Tesseract.PSM.SINGLE_BLOCK,
  '11': Tesseract.PSM.SPARSE_TEXT,
};

/** Grey level (0–255) of the fixed threshold of the binarised retry. */
const FIXED_THRESHOLD = 128;
/** A retry's reading must be at least this confident to replace the first one. */
const RETRY_MIN_CONFIDENCE = 50;

/**
 * Reads an image, retrying when the first pass finds fewer than `retryBelowWords` words. Tesseract's
 * automatic layout treats a chart or diagram as a picture and drops its labels, and its Otsu
 * binarisation turns light box fills black, hiding the text inside boxes. So two more readings are
 * tried: sparse-text mode on the same image (finds scattered labels, loses paragraphs) and automatic
 * layout on a copy binarised at a fixed mid-grey threshold (fills go white). The reading with the most
 * words of two or more characters wins; the first one on a tie. The worker's page segmentation mode
 * is restored afterwards.
 */
export async function recognizeBest(
  worker: Tesseract.Worker,
  image: Buffer,
  options: { mode: PageSegMode; retryBelowWords: number },
): Promise<OcrResult> {
  const first = await read(worker, image);
  if (countWords(first.text) >= options.retryBelowWords) return first;
  let best = first;
  const consider = (candidate: OcrResult): void => {
    if (candidate.confidence >= RETRY_MIN_CONFIDENCE && wordScore(candidate.text) > wordScore(best.text)) {
      best = candidate;
    }
  };
  try {
    if (options.mode !== '11') {
      await worker.setParameters({ tessedit_pageseg_mode: Tesseract.PSM.SPARSE_TEXT });
      consider(await read(worker, image));
    }
    await worker.setParameters({ tessedit_pageseg_mode: Tesseract.PSM.AUTO });
    consider(await read(worker, await sharp(image).threshold(FIXED_THRESHOLD).png().toBuffer()));
  } finally {
    await worker.setParameters({ tessedit_pageseg_mode: PSM_BY_MODE[options.mode] });
  }
  return best;
}

async function read(worker: Tesseract.Worker, image: Buffer): Promise<OcrResult> {
  const { data } = await worker.recognize(image);
  return { text: tidyOcrText(data.text), confidence: data.confidence ?? 0 };
}

/**
 * Tesseract ends lines with \n and paragraphs with a blank line. Trailing spaces and form feeds go,
 * and so do lone vertical bars (with an arrow head): box and table borders read as characters.
 */
function tidyOcrText(text: string | null | undefined): string {
  return (text ?? '')
    .replace(/\f/g, '')
    .split('\n')
    .map((line) =>
      line
        .split(/[ \t]+/)
        .filter((token) => !/^[|¦]+[»>]?$/.test(token))
        .join(' ')
        .trim(),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function countWords(text: string): number {
  return text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
}

/** Words of two or more letters/digits: stray marks read from lines and noise do not count. */
function wordScore(text: string): number {
  return text.match(/[\p{L}\p{N}]{2,}/gu)?.length ?? 0;
}

/** Share of a reading's letters in Arabic script from which a page counts as an Arabic one. */
const ARABIC_PAGE_SHARE = 0.5;

/**
 * Whether a reading made with several models, Arabic among them, is worth a second one with the
 * Arabic model alone: when most of its letters are Arabic. With `eng+ara` tesseract picks a model
 * word by word and often takes the English one for an Arabic word it finds hard (thin Naskh
 * strokes, grain), writing Latin nonsense ("GA Lb", "JRE") in the middle of an Arabic line.
 */
export function worthArabicAlone(languages: string, reading: OcrResult): boolean {
  const models = languages.split('+');
  if (models.length < 2 || !models.includes('ara')) return false;
  const letters = reading.text.match(/\p{L}/gu)?.length ?? 0;
  const arabic = reading.text.match(/(?=\p{L})\p{Script=Arabic}/gu)?.length ?? 0;
  return letters > 0 && arabic / letters >= ARABIC_PAGE_SHARE;
}

/**
 * The Arabic model's reading replaces the multilingual one unless tesseract is less confident of
 * it: on a page of Arabic alone both are about as confident and the Arabic one has no Latin
 * nonsense; where the page also has English words (commands, a title) the Arabic model misreads
 * them and its confidence drops (by 5–12 points on such pages).
 */
export function preferArabicReading(multilingual: OcrResult, arabicAlone: OcrResult): OcrResult {
  return arabicAlone.confidence >= multilingual.confidence ? arabicAlone : multilingual;
}
