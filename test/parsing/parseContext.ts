import {
  DEFAULT_PARSE_LIMITS,
  DEFAULT_PARSE_OPTIONS,
  type Describer,
  type OcrEngine,
  type ParseContext,
  type ParseLimits,
  type ParseOptions,
} from '../../src/parsing/context.js';

/** An OCR engine that must not be reached (a parser that never OCRs, a page with a text layer). */
export const unusedOcr: OcrEngine = {
  recognize: () => Promise.reject(new Error('OCR was not expected here')),
  close: () => Promise.resolve(),
};

/** Parsers leave describing to the describing stage: reaching this describer is a bug. */
export const unusedDescriber: Describer = {
  describe: () => Promise.reject(new Error('a parser must not describe images')),
};

export interface ParseContextOverrides {
  options?: Partial<ParseOptions>;
  limits?: Partial<ParseLimits>;
  signal?: AbortSignal;
  ocr?: OcrEngine;
  describer?: Describer;
}

/**
 * A parse context for tests: default options and limits, a live signal, and ports that fail loudly
 * unless the test passes its own.
 */
export function parseContext(fileName: string, overrides: ParseContextOverrides = {}): ParseContext {
  return {
    fileName,
    options: { ...DEFAULT_PARSE_OPTIONS, ...overrides.options },
    limits: { ...DEFAULT_PARSE_LIMITS, ...overrides.limits },
    signal: overrides.signal ?? new AbortController().signal,
    ocr: overrides.ocr ?? unusedOcr,
    describer: overrides.describer ?? unusedDescriber,
  };
}
