import {
  OCR_LANGUAGES,
  type Describer,
  type ImageDescription,
  type ImageToDescribe,
  type OcrEngine,
} from '../context.js';
import { isParseError } from '../errors.js';
import type { ImageKind } from '../model.js';
import { abortError, throwIfAborted } from '../abort.js';
import { countWords } from '../ocr/ocrPasses.js';
import { measureImage, type ImageMeasures } from './imageMeasures.js';

export interface LocalDescriberOptions {
  ocr: OcrEngine;
  /** Longest OCR excerpt quoted in the description, in characters. Default 300. */
  excerptChars?: number;
}

/** Confidence assumed for text the parser already read (the engine gave it without a score). */
const SUPPLIED_TEXT_CONFIDENCE = 70;

/**
 * Thresholds of the classification, chosen on the fixtures in test/fixtures/documents/image (values
 * measured there in brackets) with margin on both sides:
 * - flat graphic (chart or diagram): 8 colours cover ≥ 90% of it [charts, diagrams ≥ 0.99; text
 *   images ≥ 0.92 too], ≥ 80% of pixels sit in flat areas [0.93–0.96], and ≥ 45% of its edges lie on
 *   straight horizontal/vertical runs [chart 0.62, diagram 0.58; text images 0.01–0.34]. A chart also
 *   has axes (a long horizontal and a long vertical edge); a diagram does not.
 * - photo: colour entropy ≥ 6 bits [photo 8.6, noise 12; charts ~1, text images ≤ 2] and the top
 *   8 colours cover < 60% [photo 0.09].
 * - text: dense text (≥ 40 words at confidence ≥ 70) wins over everything; otherwise ≥ 3 words at
 *   confidence ≥ 60 on a mostly two-tone image (top 8 colours ≥ 85%) that is neither of the above.
 */
export const CLASSIFICATION = {
  flatTopColours: 0.9,
  flatShare: 0.8,
  straightEdges: 0.45,
  photoEntropy: 6,
  photoTopColours: 0.6,
  denseTextWords: 40,
  denseTextConfidence: 70,
  textWords: 3,
  textConfidence: 60,
  textTopColours: 0.85,
} as const;

/**
 * The default Describer: says honestly what can be computed without a model — format and size, whether
 * the picture looks like a chart, a diagram, a photo or mostly text, and the text OCR finds in it.
 * E.g. "PNG image, 800×500 px; looks like a chart (few flat colours, straight axes). Text found:
 * Revenue 2024 Q1 Q2 Q3 Q4".
 */
export function createLocalDescriber(options: LocalDescriberOptions): Describer {
  const excerptChars = options.excerptChars ?? 300;
  return {
    async describe(image: ImageToDescribe, signal: AbortSignal): Promise<ImageDescription> {
      throwIfAborted(signal);
      const measures = await measureImage(image.data);
      throwIfAborted(signal);
      const reading = await readText(image, options.ocr, signal);
      const kind = classify(measures, reading);
      const text = [
        `${formatName(image.format)} image${size(image)}${phrase(kind, reading)}.`,
        reading.text ? `Text found: ${excerpt(reading.text, excerptChars)}` : '',
      ]
        .filter(Boolean)
        .join(' ');
      return { text, kind, ocrText: reading.text || null };
    },
  };
}

interface Reading {
  text: string;
  words: number;
  confidence: number;
}

/** The text the parser already read (`image.ocrText`, then not read a second time), else OCR's. */
async function readText(image: ImageToDescribe, ocr: OcrEngine, signal: AbortSignal): Promise<Reading> {
  if (typeof image.ocrText === 'string') {
    return { text: image.ocrText, words: countWords(image.ocrText), confidence: SUPPLIED_TEXT_CONFIDENCE };
  }
  try {
    const result = await ocr.recognize(image.data, { languages: OCR_LANGUAGES, signal });
    return { text: result.text, words: countWords(result.text), confidence: result.confidence };
  } catch (error) {
    // The measures alone still make a description (also when OCR hit its own time limit); only the
    // caller stopping, or the engine closing, is passed on.
    if (signal.aborted) throw abortError(signal);
    if (isParseError(error) && error.code === 'aborted') throw error;
    return { text: '', words: 0, confidence: 0 };
  }
}

/** Decides the kind from the measures and the OCR reading; see `CLASSIFICATION` for the thresholds. */
export function classify(measures: ImageMeasures, reading: { words: number; confidence: number }): ImageKind {
  const t = CLASSIFICATION;
  if (reading.words >= t.denseTextWords && reading.confidence >= t.denseTextConfidence) return 'text';
  const flatGraphic =
    measures.topColoursShare >= t.flatTopColours &&
    measures.flatShare >= t.flatShare &&
    measures.straightEdgeShare >= t.straightEdges;
  if (flatGraphic) return measures.hasAxes ? 'chart' : 'diagram';
  if (measures.colourEntropy >= t.photoEntropy && measures.topColoursShare < t.photoTopColours)
    return 'photo';
  if (
    reading.words >= t.textWords &&
    reading.confidence >= t.textConfidence &&
    measures.topColoursShare >= t.textTopColours
  ) {
    return 'text';
  }
  return 'unknown';
}

function phrase(kind: ImageKind, reading: Reading): string {
  switch (kind) {
    case 'chart':
      return '; looks like a chart (few flat colours, straight axes)';
    case 'diagram':
      return '; looks like a diagram (few flat colours, straight edges)';
    case 'photo':
      return '; looks like a photograph (many colours, fine detail)';
    case 'text':
      return `; mostly text (${reading.words} words read by OCR)`;
    case 'decoration':
    case 'unknown':
      return '';
  }
}

function formatName(format: string | null): string {
  if (!format) return 'An';
  return format === 'jpeg' ? 'JPEG' : format.toUpperCase();
}

function size(image: ImageToDescribe): string {
  return image.width && image.height ? `, ${image.width}×${image.height} px` : '';
}

/** Whitespace collapsed, cut at a word boundary with an ellipsis when longer than `limit`. */
export function excerpt(text: string, limit: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= limit) return flat;
  const cut = flat.slice(0, limit);
  const space = cut.lastIndexOf(' ');
  return `${(space > limit * 0.6 ? cut.slice(0, space) : cut).trimEnd()} …`;
}
