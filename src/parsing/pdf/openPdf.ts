import { abortError, throwIfAborted } from '../abort.js';
import { ParseError, isParseError } from '../errors.js';
import { documentOptions, loadPdfjs, type PdfDocument, type PdfjsModule } from './pdfjs.js';

export interface OpenedPdf {
  pdfjs: PdfjsModule;
  doc: PdfDocument;
  /** Destroys the document (frees the worker-side objects); safe to call twice. */
  close(): Promise<void>;
}

/**
 * Opens a PDF with pdf.js. An abort destroys the loading task, so a parse stuck inside pdf.js stops
 * too; every failure comes out as a `ParseError`.
 */
export async function openPdf(bytes: Uint8Array, signal: AbortSignal): Promise<OpenedPdf> {
  throwIfAborted(signal);
  const pdfjs = await loadPdfjs();
  // pdf.js transfers (detaches) the buffer it is given: hand it a copy so the caller's bytes survive.
  const task = pdfjs.getDocument(documentOptions(bytes.slice()));
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    signal.removeEventListener('abort', onAbort);
    await task.destroy().catch(() => undefined);
  };
  const onAbort = (): void => void close();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const doc = await task.promise;
    return { pdfjs, doc, close };
  } catch (error) {
    await close();
    throw toParseError(error, signal, 'open');
  }
}

/** Maps whatever pdf.js (or anything under it) threw while doing `what` to a `ParseError`. */
export function toParseError(error: unknown, signal: AbortSignal, what: string): ParseError {
  if (isParseError(error)) return error;
  if (signal.aborted) return abortError(signal);
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'PasswordException') {
    return new ParseError('encrypted_document', 'The PDF is password-protected', { cause: error });
  }
  if (/empty/i.test(message) && name === 'InvalidPDFException') {
    return new ParseError('empty_document', 'The PDF file is empty', { cause: error });
  }
  return new ParseError('corrupt_document', `The PDF could not be read (${what}): ${message}`, {
    cause: error,
  });
}
