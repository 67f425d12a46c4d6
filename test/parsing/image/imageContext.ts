import type { OcrEngine, ParseContext } from '../../../src/parsing/context.js';
import { parseContext, type ParseContextOverrides } from '../parseContext.js';

/** A context for the image parser, which always OCRs: the engine is required. */
export function imageContext(
  fileName: string,
  ocr: OcrEngine,
  overrides: Omit<ParseContextOverrides, 'ocr'> = {},
): ParseContext {
  return parseContext(fileName, { ...overrides, ocr });
}
