import sharp from 'sharp';

/**
 * Page clean-up before OCR (after greyscale), measured on the real-document corpus's scanned-looking
 * pages (grey paper, grain, specks, 1–5° skew, 8–12 pt type at 150 DPI; docs/benchmarks.md): small
 * type is scaled up until its lines are tall enough for tesseract's LSTM models, a clearly skewed
 * page is turned straight, and grain is smoothed away before tesseract's own Otsu binarisation. The
 * decisions come from a small copy binarised with Otsu's threshold.
 */
export interface Preprocessing {
  /** Scale factor applied (1 = none). */
  scale: number;
  /** Rotation applied, in degrees (0 = none). */
  deskewDegrees: number;
  /** Whether grain was smoothed. */
  denoised: boolean;
}

/**
 * Text lines shorter than this (px, ascender to descender: 10 pt type at 150 DPI measures ~16) are
 * scaled up...
 */
const MIN_LINE_HEIGHT = 17;
/** ...to about this height. */
const TARGET_LINE_HEIGHT = 30;
const MAX_SCALE = 3;
/** Skews searched, in degrees either way, and the step. */
const MAX_SKEW = 8;
const SKEW_STEP = 0.1;
/**
 * Below this the page is left unrotated: tesseract copes with a small skew itself, and rotating
 * costs sharpness — on the corpus's Arabic pages skewed 1–2°, turning them straight raised the
 * character error rate (0.057 → 0.107, 0.031 → 0.100); at 5° it brought it from 0.68 to 0.03.
 */
const MIN_SKEW = 2.5;
/** Width of the copy the decisions are taken on. */
const ANALYSIS_WIDTH = 500;

interface Analysis {
  lineHeight: number | null;
  skewDegrees: number;
  /** Standard deviation of the paper's grey (0 for a clean rendering, 10+ for a grainy scan). */
  paperNoise: number;
}

/** Runs of inked rows shorter than this (px) are rules or specks, not text lines. */
const MIN_TEXT_LINE = 8;
/** Paper noisier than this is smoothed; a clean image is not (smoothing softens every stroke). */
const NOISY_PAPER = 4;
/**
 * Grain on a page at its own size is smoothed with a Gaussian of this radius, not a median: at
 * 150 DPI the hairlines, dots and teeth of Naskh type (Amiri, Scheherazade, Lateef) are one or two
 * pixels wide, and a 3×3 median deletes them along with the grain. On held-out pages in those
 * families the median raised the character error rate from 0.12 to 0.17 (scan), 0.10 to 0.38 (8 pt)
 * and 0.37 to 0.62; the Gaussian averages grain away and keeps a thin stroke's ink for Otsu.
 */
const GRAIN_SIGMA = 0.8;

/**
 * Cleans a greyscale PNG for OCR; `maxPixels` bounds the upscaled size. Returns the new PNG and what
 * was done. An image without detectable text lines is returned as it came.
 */
export async function preprocessPage(
  png: Buffer,
  maxPixels: number,
): Promise<{ image: Buffer; done: Preprocessing }> {
  const { width = 0, height = 0 } = await sharp(png).metadata();
  if (width < 32 || height < 32) return { image: png, done: { scale: 1, deskewDegrees: 0, denoised: false } };
  const analysis = await analyse(png, width);
  let scale = 1;
  if (analysis.lineHeight !== null && analysis.lineHeight < MIN_LINE_HEIGHT) {
    scale = Math.min(MAX_SCALE, TARGET_LINE_HEIGHT / analysis.lineHeight);
    scale = Math.min(scale, Math.sqrt(maxPixels / (width * height)));
    if (scale < 1.15) scale = 1;
  }
  const deskew = Math.abs(analysis.skewDegrees) >= MIN_SKEW ? -analysis.skewDegrees : 0;
  const denoise = analysis.paperNoise > NOISY_PAPER;
  if (scale === 1 && deskew === 0 && !denoise) {
    return { image: png, done: { scale, deskewDegrees: 0, denoised: false } };
  }
  let pipeline = sharp(png);
  if (scale !== 1) {
    pipeline = sharp(
      await pipeline
        .resize(Math.round(width * scale), Math.round(height * scale), { kernel: 'lanczos3' })
        .png({ compressionLevel: 1 })
        .toBuffer(),
    );
  }
  if (deskew !== 0) {
    pipeline = pipeline.rotate(deskew, { background: { r: 255, g: 255, b: 255 } });
  }
  if (denoise) {
    // Scaled up, strokes are two or more pixels wide and survive a median, which also clears the
    // blotches that interpolation makes of grain (a Gaussian leaves them: 0.02 → 0.17 on 8 pt Naskh).
    pipeline = scale > 1 ? pipeline.median(3) : pipeline.blur(GRAIN_SIGMA);
  }
  const image = await pipeline.png({ compressionLevel: 1 }).toBuffer();
  return { image, done: { scale, deskewDegrees: deskew, denoised: denoise } };
}

/** Line height and skew from a small binarised copy (ink = 1). */
async function analyse(png: Buffer, width: number): Promise<Analysis> {
  const factor = Math.min(1, ANALYSIS_WIDTH / width);
  const small = sharp(png)
    .resize(Math.max(1, Math.round(width * factor)))
    .extractChannel(0);
  const raw = await small.clone().raw().toBuffer();
  const { data, info } = await small.median(3).raw().toBuffer({ resolveWithObject: true });
  const w = info.width;
  const h = info.height;
  const threshold = otsu(data);
  const paperNoise = paperDeviation(raw);
  const ink = new Uint8Array(w * h);
  for (let i = 0; i < ink.length; i += 1) ink[i] = (data[i] ?? 255) < threshold ? 1 : 0;
  const skewDegrees = findSkew(ink, w, h);
  const lineHeight = medianLineHeight(ink, w, h, skewDegrees, MIN_TEXT_LINE * factor);
  return { lineHeight: lineHeight === null ? null : lineHeight / factor, skewDegrees, paperNoise };
}

/**
 * Standard deviation of the paper's grey: of the pixels within 40 levels of the most common grey.
 * Anti-aliased glyph edges are few and far from it; a scanner's grain is everywhere around it.
 */
function paperDeviation(grey: Uint8Array | Buffer): number {
  const histogram = new Array<number>(256).fill(0);
  for (const value of grey) histogram[value] = (histogram[value] ?? 0) + 1;
  let mode = 255;
  for (let i = 0; i < 256; i += 1) if ((histogram[i] ?? 0) > (histogram[mode] ?? 0)) mode = i;
  let count = 0;
  let sum = 0;
  let squares = 0;
  for (let i = Math.max(0, mode - 40); i <= Math.min(255, mode + 40); i += 1) {
    const n = histogram[i] ?? 0;
    count += n;
    sum += n * i;
    squares += n * i * i;
  }
  if (count === 0) return 0;
  const mean = sum / count;
  return Math.sqrt(Math.max(0, squares / count - mean * mean));
}

/** Otsu's threshold over a grey histogram. */
function otsu(grey: Uint8Array | Buffer): number {
  const histogram = new Array<number>(256).fill(0);
  for (const value of grey) histogram[value] = (histogram[value] ?? 0) + 1;
  const total = grey.length;
  let sum = 0;
  for (let i = 0; i < 256; i += 1) sum += i * (histogram[i] ?? 0);
  let background = 0;
  let sumBackground = 0;
  let best = 0;
  let threshold = 128;
  for (let i = 0; i < 256; i += 1) {
    background += histogram[i] ?? 0;
    if (background === 0) continue;
    const foreground = total - background;
    if (foreground === 0) break;
    sumBackground += i * (histogram[i] ?? 0);
    const meanB = sumBackground / background;
    const meanF = (sum - sumBackground) / foreground;
    const between = background * foreground * (meanB - meanF) ** 2;
    if (between > best) {
      best = between;
      threshold = i + 1;
    }
  }
  return threshold;
}

/**
 * Row ink counts of the page sheared by `degrees` (a shear stands in for a rotation at these small
 * angles): text lines give sharp peaks and empty gaps when the angle matches the page's skew.
 */
function rowProfile(ink: Uint8Array, w: number, h: number, degrees: number): Float64Array {
  const slope = Math.tan((degrees * Math.PI) / 180);
  const rows = new Float64Array(h);
  for (let x = 0; x < w; x += 2) {
    const shift = Math.round(x * slope);
    for (let y = 0; y < h; y += 1) {
      if (ink[y * w + x] === 0) continue;
      const row = y - shift;
      if (row >= 0 && row < h) rows[row] = (rows[row] ?? 0) + 1;
    }
  }
  return rows;
}

/** The page's skew in degrees, as sharp's rotate counts them: the shear with the sharpest row profile. */
function findSkew(ink: Uint8Array, w: number, h: number): number {
  const sharpness = (degrees: number): number => {
    const rows = rowProfile(ink, w, h, degrees);
    let score = 0;
    for (let y = 1; y < h; y += 1) score += ((rows[y] ?? 0) - (rows[y - 1] ?? 0)) ** 2;
    return score;
  };
  // Coarse, then fine around the best coarse angle; an angle must beat the one before it strictly,
  // so a page without lines (or blank) stays at 0.
  const search = (from: number, to: number, step: number, start: number): number => {
    let best = start;
    let bestScore = sharpness(start);
    for (let degrees = from; degrees <= to + 1e-9; degrees += step) {
      const score = sharpness(degrees);
      if (score > bestScore) {
        bestScore = score;
        best = degrees;
      }
    }
    return best;
  };
  const coarse = search(-MAX_SKEW, MAX_SKEW, 0.5, 0);
  return Math.round(search(coarse - 0.4, coarse + 0.4, SKEW_STEP, coarse) * 10) / 10;
}

/**
 * Median height of the runs of inked rows (text lines) once the skew is taken out, counting runs of
 * at least `minHeight` px; null unless there are three or more and most are alike (lines of text,
 * not the rules and boxes of a diagram).
 */
function medianLineHeight(
  ink: Uint8Array,
  w: number,
  h: number,
  skew: number,
  minHeight: number,
): number | null {
  const rows = rowProfile(ink, w, h, skew);
  const peak = Math.max(0, ...rows);
  if (peak === 0) return null;
  const heights: number[] = [];
  let start = -1;
  for (let y = 0; y <= h; y += 1) {
    const inked = y < h && (rows[y] ?? 0) > peak * 0.05;
    if (inked && start < 0) start = y;
    else if (!inked && start >= 0) {
      if (y - start >= Math.max(2, minHeight)) heights.push(y - start);
      start = -1;
    }
  }
  if (heights.length < 3) return null;
  heights.sort((a, b) => a - b);
  const median = heights[Math.floor(heights.length / 2)] ?? 0;
  const alike = heights.filter((height) => height >= median * 0.6 && height <= median * 1.6).length;
  return alike >= heights.length * 0.6 ? median : null;
}
