import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { DocumentInitParameters } from 'pdfjs-dist/types/src/display/api.js';

export type PdfjsModule = typeof Pdfjs;
export type PdfDocument = Pdfjs.PDFDocumentProxy;
export type PdfPage = Pdfjs.PDFPageProxy;

/**
 * pdf.js is loaded on first use: it costs ~100 ms and tens of MB, which a process that never sees a
 * PDF should not pay. In Node the legacy build never starts a real worker: it runs its "fake worker"
 * on the calling thread, importing `pdf.worker.mjs` from next to `pdf.mjs` (the default `workerSrc`),
 * so nothing has to be configured and the work stays on the core that runs the parse.
 */
export function loadPdfjs(): Promise<PdfjsModule> {
  return import('pdfjs-dist/legacy/build/pdf.mjs');
}

const packageDir = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

/** Largest image pdf.js decodes (pixels); bigger ones are skipped instead of allocating hundreds of MB. */
export const MAX_IMAGE_PIXELS = 6000 * 6000;

/**
 * Options for `getDocument`. Data files (CMaps for CJK fonts, standard font metrics, the JPEG 2000 and
 * JBIG2 decoders) are read from the package folder, never fetched; nothing is evaluated; fonts are not
 * installed (nothing is rendered).
 */
export function documentOptions(data: Uint8Array): DocumentInitParameters {
  return {
    data,
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    enableXfa: false,
    stopAtErrors: false,
    maxImageSize: MAX_IMAGE_PIXELS,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    cMapUrl: `${join(packageDir, 'cmaps')}/`,
    cMapPacked: true,
    standardFontDataUrl: `${join(packageDir, 'standard_fonts')}/`,
    wasmUrl: `${join(packageDir, 'wasm')}/`,
    iccUrl: `${join(packageDir, 'iccs')}/`,
  };
}
