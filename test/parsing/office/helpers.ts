import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_PARSE_LIMITS,
  DEFAULT_PARSE_OPTIONS,
  type ParseContext,
  type ParseLimits,
} from '../../../src/parsing/context.js';
import { ParseError, type ParseErrorCode } from '../../../src/parsing/errors.js';

const fixtureDir = fileURLToPath(new URL('../../fixtures/documents/office/', import.meta.url));

export function fixture(name: string): Uint8Array {
  return readFileSync(fixtureDir + name);
}

/**
 * A parse context for office tests. Office parsers never OCR or describe (a later stage does), so the
 * ports fail loudly if one is ever called.
 */
export function context(
  fileName: string,
  overrides: { limits?: Partial<ParseLimits>; signal?: AbortSignal } = {},
): ParseContext {
  return {
    fileName,
    options: DEFAULT_PARSE_OPTIONS,
    limits: { ...DEFAULT_PARSE_LIMITS, ...overrides.limits },
    signal: overrides.signal ?? new AbortController().signal,
    ocr: {
      recognize: () => Promise.reject(new Error('office parsers must not OCR')),
      close: () => Promise.resolve(),
    },
    describer: { describe: () => Promise.reject(new Error('office parsers must not describe images')) },
  };
}

/** Runs `work` and returns the ParseError it rejects with; fails when it resolves or throws anything else. */
export async function parseErrorOf(work: Promise<unknown>): Promise<ParseError> {
  try {
    await work;
  } catch (error) {
    if (error instanceof ParseError) return error;
    throw new Error(`expected a ParseError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a ParseError, but parsing succeeded');
}

export async function expectCode(work: Promise<unknown>, code: ParseErrorCode): Promise<ParseError> {
  const error = await parseErrorOf(work);
  if (error.code !== code)
    throw new Error(`expected ParseError ${code}, got ${error.code}: ${error.message}`);
  return error;
}
