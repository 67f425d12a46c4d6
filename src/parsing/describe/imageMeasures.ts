import sharp, { type OutputInfo, type Sharp } from 'sharp';
import { imageFailure, MAX_IMAGE_PIXELS, openImage, sniffImageFormat } from '../image/imageInput.js';

/**
 * Cheap, explainable measures of what an image looks like, computed on a copy of at most
 * `ANALYSIS_SIDE` px (nearest-neighbour, so flat colours stay flat and no blended colours appear),
 * flattened onto white. Colours are compared after quantising each channel to 4 bits (16 levels),
 * which absorbs JPEG noise and anti-aliasing.
 */
export interface ImageMeasures {
  /** Quantised colours that each cover at least 0.1% of the pixels. */
  distinctColours: number;
  /** Share of pixels in the 8 most common quantised colours (1 = a handful of flat colours). */
  topColoursShare: number;
  /** Shannon entropy of the quantised colour histogram, in bits (0 – 12). */
  colourEntropy: number;
  /** Share of pixels whose right and lower neighbours have the same quantised colour. */
  flatShare: number;
  /** Share of edge pixels lying on a horizontal or vertical run of at least `STRAIGHT_RUN` px. */
  straightEdgeShare: number;
  /** A horizontal and a vertical edge, each spanning at least 40% of the image: chart axes, bar sides. */
  hasAxes: boolean;
  /** Mean HSV-style saturation 0–1 (grey scans are 0). */
  saturation: number;
}

const ANALYSIS_SIDE = 320;
/** Grey-level step (0–255) that counts as an edge between neighbouring pixels. */
const EDGE_STEP = 40;
/** Edge pixels in a line at least this long are "straight" (letters are shorter at 320 px). */
const STRAIGHT_RUN = 8;
/** Share of width (height) a run must span to count as an axis. */
const AXIS_SPAN = 0.4;

/** Measures an encoded image (PNG, JPEG, TIFF, BMP, or anything else sharp decodes, e.g. GIF, WebP). */
export async function measureImage(data: Uint8Array): Promise<ImageMeasures> {
  const format = sniffImageFormat(data);
  let decoded: { data: Buffer; info: OutputInfo };
  try {
    const input: Sharp = format
      ? openImage(data, format, { page: 0 })
      : sharp(data, { failOn: 'error', limitInputPixels: MAX_IMAGE_PIXELS });
    decoded = await input
      .flatten({ background: '#ffffff' })
      .resize({ width: ANALYSIS_SIDE, height: ANALYSIS_SIDE, fit: 'inside', kernel: 'nearest' })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw imageFailure(format, error);
  }
  const { data: pixels, info } = decoded;
  const { width, height, channels } = info;
  const count = width * height;
  const colour = new Uint16Array(count);
  const grey = new Uint8Array(count);
  let saturationSum = 0;
  for (let index = 0; index < count; index += 1) {
    const r = pixels[index * channels] ?? 0;
    const g = pixels[index * channels + 1] ?? 0;
    const b = pixels[index * channels + 2] ?? 0;
    colour[index] = ((r >> 4) << 8) | ((g >> 4) << 4) | (b >> 4);
    grey[index] = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
    const max = Math.max(r, g, b);
    saturationSum += max === 0 ? 0 : (max - Math.min(r, g, b)) / max;
  }
  return {
    ...colourMeasures(colour, count),
    flatShare: flatShare(colour, width, height),
    ...edgeMeasures(grey, width, height),
    saturation: saturationSum / count,
  };
}

function colourMeasures(
  colour: Uint16Array,
  count: number,
): Pick<ImageMeasures, 'distinctColours' | 'topColoursShare' | 'colourEntropy'> {
  const histogram = new Uint32Array(4096);
  for (const value of colour) histogram[value] = (histogram[value] ?? 0) + 1;
  const used = [...histogram].filter((n) => n > 0).sort((a, b) => b - a);
  const entropy = used.reduce((sum, n) => {
    const p = n / count;
    return sum - p * Math.log2(p);
  }, 0);
  return {
    distinctColours: used.filter((n) => n >= count * 0.001).length,
    topColoursShare: used.slice(0, 8).reduce((sum, n) => sum + n, 0) / count,
    colourEntropy: entropy,
  };
}

function flatShare(colour: Uint16Array, width: number, height: number): number {
  if (width < 2 || height < 2) return 1;
  let flat = 0;
  for (let y = 0; y < height - 1; y += 1) {
    for (let x = 0; x < width - 1; x += 1) {
      const at = y * width + x;
      if (colour[at] === colour[at + 1] && colour[at] === colour[at + width]) flat += 1;
    }
  }
  return flat / ((width - 1) * (height - 1));
}

function edgeMeasures(
  grey: Uint8Array,
  width: number,
  height: number,
): Pick<ImageMeasures, 'straightEdgeShare' | 'hasAxes'> {
  const step = (a: number, b: number): boolean => Math.abs((grey[a] ?? 0) - (grey[b] ?? 0)) >= EDGE_STEP;
  // Vertical edges (a step between x and x+1) followed down each column; horizontal ones along rows.
  const columns = runs(width - 1, height, (x, y) => step(y * width + x, y * width + x + 1));
  const rows = runs(height - 1, width, (y, x) => step(y * width + x, (y + 1) * width + x));
  const edges = columns.edges + rows.edges;
  return {
    straightEdgeShare: edges === 0 ? 0 : (columns.straight + rows.straight) / edges,
    hasAxes: rows.longest >= AXIS_SPAN * width && columns.longest >= AXIS_SPAN * height,
  };
}

/** Walks `lines` lines of `length` pixels, counting edge pixels, those in long runs, the longest run. */
function runs(
  lines: number,
  length: number,
  isEdge: (line: number, position: number) => boolean,
): { edges: number; straight: number; longest: number } {
  let edges = 0;
  let straight = 0;
  let longest = 0;
  for (let line = 0; line < lines; line += 1) {
    let run = 0;
    for (let position = 0; position <= length; position += 1) {
      if (position < length && isEdge(line, position)) {
        run += 1;
        edges += 1;
        continue;
      }
      if (run >= STRAIGHT_RUN) straight += run;
      longest = Math.max(longest, run);
      run = 0;
    }
  }
  return { edges, straight, longest };
}
