import { createHash } from 'node:crypto';
import type { AttachmentRef } from '../domain/conversation/events.js';
import { DEFAULT_PARSE_LIMITS, DEFAULT_PARSE_OPTIONS } from '../parsing/context.js';
import { detectFormat } from '../parsing/detect/detectFormat.js';
import type { ParseJob, ParseResult } from '../parsing/job.js';
import type { Extension } from '../parsing/model.js';
import type { ParsePool } from '../parsing/worker/parsePool.js';

/** A file of a chat message as the turn uses it: its reference, its text, and the image itself. */
export interface ReadAttachment extends AttachmentRef {
  text: string;
  /** A data URI, for a model that accepts images (absent for documents and oversized images). */
  image?: string;
}

export interface AttachmentLimits {
  /** Characters of one file's text the model reads (the rest is cut, and the cut is said). */
  maxTextChars: number;
  /** Largest image sent to the model as it is. */
  maxImageBytes: number;
  maxFileBytes: number;
}

const IMAGE_TYPES: Partial<Record<Extension, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.tiff': 'image/tiff',
  '.tif': 'image/tiff',
  '.bmp': 'image/bmp',
};
/** Images the OpenAI wire format carries; others are read (OCR, description) but not sent. */
const SENDABLE_IMAGES = new Set(['image/png', 'image/jpeg']);

/**
 * Reads the files of a multimodal message through the documents pipeline: documents are parsed,
 * images OCR'd and described, each becoming text the model reads, recorded by content hash and
 * name. A file the pipeline refuses (unsupported, corrupt, too large) fails the request with the
 * pipeline's error, before anything is stored.
 */
export async function readAttachments(
  parser: Pick<ParsePool, 'run'>,
  files: ReadonlyArray<{ fileName: string; mimeType: string | null; read(): Promise<Buffer> }>,
  limits: AttachmentLimits,
  signal: AbortSignal,
): Promise<ReadAttachment[]> {
  const read: ReadAttachment[] = [];
  for (const file of files) {
    const bytes = await file.read();
    const format = await detectFormat(bytes, file.fileName);
    const job: ParseJob = {
      kind: 'parse',
      fileName: file.fileName,
      bytes,
      options: { ...DEFAULT_PARSE_OPTIONS, enableOcr: true },
      cleaning: { removeUrls: false, normalizeArabic: false },
      limits: { ...DEFAULT_PARSE_LIMITS, maxInputBytes: limits.maxFileBytes },
      includeTables: true,
      includeImages: false,
      summarize: false,
    };
    let result: ParseResult | null = null;
    for await (const event of parser.run(job, signal)) {
      if (event.type === 'result') result = event.result as ParseResult;
    }
    const fullText = result?.llmReady || result?.fullText || '';
    const text =
      fullText.length <= limits.maxTextChars
        ? fullText
        : `${fullText.slice(0, limits.maxTextChars)}\n[… cut: ${fullText.length - limits.maxTextChars} more characters]`;
    const mimeType = IMAGE_TYPES[format] ?? file.mimeType ?? null;
    const sendable =
      mimeType !== null && SENDABLE_IMAGES.has(mimeType) && bytes.length <= limits.maxImageBytes;
    read.push({
      sha256: createHash('sha256').update(bytes).digest('hex'),
      name: file.fileName,
      mimeType,
      sizeBytes: bytes.length,
      text,
      ...(sendable ? { image: `data:${mimeType};base64,${bytes.toString('base64')}` } : {}),
    });
  }
  return read;
}
