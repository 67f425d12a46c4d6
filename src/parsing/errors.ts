/**
 * Why a document could not be parsed. Every parser failure is a `ParseError` with one of these codes;
 * anything else escaping a parser is a bug. The HTTP layer maps codes to statuses (413 for
 * `too_large`, 504 for `timeout`, 400 for the rest) and the code becomes the error type.
 */
export type ParseErrorCode =
  /** The extension (or detected type) is not one Archivist parses. */
  | 'unsupported_format'
  /** The bytes are of another type than the file name says (e.g. a PNG named .pdf). */
  | 'format_mismatch'
  /** The bytes are not a valid file of their type (truncated, garbage, broken structure). */
  | 'corrupt_document'
  /** Password-protected or encrypted content. */
  | 'encrypted_document'
  /** Zero bytes, or a document without any content at all. */
  | 'empty_document'
  /** Over a size limit: upload bytes, decompressed size (ZIP bombs), pages, rows, cells. */
  | 'too_large'
  /** Structure deeper or more complex than the limits allow (nesting depth, entry count). */
  | 'too_complex'
  /** The per-document time budget ran out. */
  | 'timeout'
  /** The caller went away (client disconnect). */
  | 'aborted';

export class ParseError extends Error {
  override readonly name = 'ParseError';
  constructor(
    readonly code: ParseErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isParseError(error: unknown): error is ParseError {
  return error instanceof ParseError;
}
