import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { DocumentInitParameters } from 'pdfjs-dist/types/src/display/api.js';
import { installSyncDeflateDecompression } from './syncInflate.js';

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
  loading ??= loadWithNativeBuiltins();
  return loading;
}

let loading: Promise<PdfjsModule> | undefined;

/**
 * The legacy build bundles core-js, which on Node 20 (V8 11) *replaces* `Array.prototype.push` (an
 * error-type fix for arrays with a read-only length, V8 issue 12681) and `JSON.stringify`/`JSON.parse`
 * (for `JSON.rawJSON`) for the whole thread: after loading, push ran 3–4× and JSON.stringify ~30×
 * slower, in pdf.js and in every parser, chunker and serializer sharing the thread (the profile of a
 * text PDF parse showed the push polyfill alone at ~17% of the time). pdf.js needs none of the three,
 * so the natives are put back once both bundles are loaded; the worker bundle is loaded here too, as
 * `globalThis.pdfjsWorker` (which the fake worker uses), because loading it later would replace them
 * again. Functions core-js only adds (Promise.withResolvers…) stay: pdf.js uses them.
 */
async function loadWithNativeBuiltins(): Promise<PdfjsModule> {
  const natives = { push: Array.prototype.push, stringify: JSON.stringify, parse: JSON.parse };
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // @ts-expect-error -- the worker bundle ships no type declarations; it is loaded for its side effect.
  await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
  Object.defineProperty(Array.prototype, 'push', {
    value: natives.push,
    writable: true,
    configurable: true,
    enumerable: false,
  });
  JSON.stringify = natives.stringify;
  JSON.parse = natives.parse;
  installSyncDeflateDecompression();
  return pdfjs;
}

const packageDir = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

/** Largest image pdf.js decodes (pixels); bigger ones are skipped instead of allocating hundreds of MB. */
const MAX_IMAGE_PIXELS = 6000 * 6000;

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
