import { ParseError } from '../errors.js';
import { preprocessPage } from './pagePreprocess.js';
import {
  imageFailure,
  MAX_IMAGE_PIXELS,
  openImage,
  readImageInfo,
  sniffImageFormat,
} from '../image/imageInput.js';

/**
 * Above this many pixels an image is scaled down before OCR. An A3 page at 300 DPI (17 MP) passes
 * untouched; beyond 30 MP the text is large enough in pixels to survive the scaling, while tesseract's
 * WebAssembly heap (and time) would grow with every extra pixel.
 */
const OCR_MAX_PIXELS = 30_000_000;

/**
 * Normalises any supported image into what tesseract reads best and safely: an 8-bit greyscale PNG,
 * transparency flattened onto white (black text on a transparent background would otherwise become
 * black on black), EXIF orientation applied, first page of a TIFF (Leptonica in tesseract.js fails on
 * many TIFFs), BMP decoded by us, then small type scaled up, a skewed page straightened and grain
 * smoothed (`preprocessPage`). Rejects unknown bytes as `corrupt_document` and pixel bombs as
 * `too_large` before decoding.
 */
export async function prepareOcrImage(image: Uint8Array): Promise<Buffer> {
  const format = sniffImageFormat(image);
  if (!format) {
    throw new ParseError('corrupt_document', 'OCR input is not a PNG, JPEG, TIFF or BMP image');
  }
  const info = await readImageInfo(image, format, MAX_IMAGE_PIXELS);
  try {
    let pipeline = openImage(image, format, { page: 0 }).flatten({ background: '#ffffff' }).greyscale();
    const pixels = info.width * info.height;
    if (pixels > OCR_MAX_PIXELS) {
      const scale = Math.sqrt(OCR_MAX_PIXELS / pixels);
      pipeline = pipeline.resize(Math.floor(info.width * scale), Math.floor(info.height * scale));
    }
    const grey = await pipeline.png({ compressionLevel: 1 }).toBuffer();
    return (await preprocessPage(grey, OCR_MAX_PIXELS)).image;
  } catch (error) {
    throw imageFailure(format, error);
  }
}
