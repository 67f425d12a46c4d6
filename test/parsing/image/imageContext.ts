import {
  DEFAULT_PARSE_LIMITS,
  DEFAULT_PARSE_OPTIONS,
  type Describer,
  type OcrEngine,
  type ParseContext,
  type ParseLimits,
  type ParseOptions,
} from '../../../src/parsing/context.js';

/** Parsers leave describing to the describing stage: reaching this describer is a bug. */
export const unusedDescriber: Describer = {
  describe: () => Promise.reject(new Error('a parser must not describe images')),
};

export function imageContext(
  fileName: string,
  ocr: OcrEngine,
  overrides: { options?: Partial<ParseOptions>; limits?: Partial<ParseLimits>; signal?: AbortSignal } = {},
): ParseContext {
  return {
    fileName,
    options: { ...DEFAULT_PARSE_OPTIONS, ...overrides.options },
    limits: { ...DEFAULT_PARSE_LIMITS, ...overrides.limits },
    signal: overrides.signal ?? new AbortController().signal,
    ocr,
    describer: unusedDescriber,
  };
}
