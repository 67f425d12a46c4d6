import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_PARSE_LIMITS,
  DEFAULT_PARSE_OPTIONS,
  type ParseContext,
  type ParseLimits,
} from '../../../src/parsing/context.js';
import { ParseError, type ParseErrorCode } from '../../../src/parsing/errors.js';
import type { Block, ParsedDocument } from '../../../src/parsing/model.js';
import { expect } from 'chai';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/documents/text/', import.meta.url));

/**
 * The outline of sources/report.fodt, which LibreOffice exports to report.html and (through PDF and
 * pdftotext) to report.txt: both parsers must find it.
 */
export const REPORT_HEADINGS: ReadonlyArray<[number, string]> = [
  [1, '1 Introduction'],
  [2, '1.1 Scope'],
  [1, '2 Results'],
  [2, '2.1 Seasonal variation'],
  [3, '2.1.1 Summer minimum'],
  [1, '3 Conclusions'],
];

export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(`${FIXTURES}${name}`));
}

export function bytesOf(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

/** A context for text parsers: they never OCR or describe, so those ports fail loudly if touched. */
export function textContext(
  fileName: string,
  options: { limits?: Partial<ParseLimits>; signal?: AbortSignal } = {},
): ParseContext {
  const unused = (): never => {
    throw new Error('text parsers must not use OCR or the describer');
  };
  return {
    fileName,
    options: DEFAULT_PARSE_OPTIONS,
    limits: { ...DEFAULT_PARSE_LIMITS, ...options.limits },
    signal: options.signal ?? new AbortController().signal,
    ocr: { recognize: unused, close: async () => undefined },
    describer: { describe: unused },
  };
}

/** Resolves to the ParseError the promise rejects with; fails the test if it resolves or throws anything else. */
export async function parseErrorOf(promise: Promise<unknown>): Promise<ParseError> {
  try {
    await promise;
  } catch (error) {
    expect(error, String(error)).to.be.instanceOf(ParseError);
    return error as ParseError;
  }
  expect.fail('expected a ParseError');
}

export async function expectCode(promise: Promise<unknown>, code: ParseErrorCode): Promise<ParseError> {
  const error = await parseErrorOf(promise);
  expect(error.code, error.message).to.equal(code);
  return error;
}

export function headings(document: ParsedDocument): Array<[number, string]> {
  return document.blocks.flatMap((block) =>
    block.type === 'heading' ? [[block.level, block.text] as [number, string]] : [],
  );
}

export function blocksOf<T extends Block['type']>(
  document: ParsedDocument,
  type: T,
): Array<Extract<Block, { type: T }>> {
  return document.blocks.filter((block): block is Extract<Block, { type: T }> => block.type === type);
}

export function paragraphs(document: ParsedDocument): string[] {
  return blocksOf(document, 'paragraph').map((block) => block.text);
}
