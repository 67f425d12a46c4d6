import { readFileSync } from 'node:fs';
import {
  DEFAULT_PARSE_LIMITS,
  DEFAULT_PARSE_OPTIONS,
  type OcrEngine,
  type ParseContext,
  type ParseLimits,
  type ParseOptions,
} from '../../../src/parsing/context.js';

const fixtures = new URL('../../fixtures/documents/pdf/', import.meta.url);

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(name, fixtures)));
}

/** An OCR engine that must not be reached: pages with a text layer never need it. */
export const unusedOcr: OcrEngine = {
  recognize: () => Promise.reject(new Error('OCR was not expected here')),
  close: () => Promise.resolve(),
};

export function pdfContext(
  fileName: string,
  overrides: {
    options?: Partial<ParseOptions>;
    limits?: Partial<ParseLimits>;
    signal?: AbortSignal;
    ocr?: OcrEngine;
  } = {},
): ParseContext {
  return {
    fileName,
    options: { ...DEFAULT_PARSE_OPTIONS, ...overrides.options },
    limits: { ...DEFAULT_PARSE_LIMITS, ...overrides.limits },
    signal: overrides.signal ?? new AbortController().signal,
    ocr: overrides.ocr ?? unusedOcr,
    describer: {
      describe: () => Promise.reject(new Error('the PDF parser does not describe images')),
    },
  };
}
