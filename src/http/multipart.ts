import { randomUUID } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readFile, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Fields, File, Files, Part } from 'formidable';
import type { Middleware } from 'koa';
import { HttpError } from './httpError.js';
import type { UploadedFile } from './route.js';
import { cleanFileName } from '../parsing/fileName.js';
import { onceSucceeded } from '../onceSucceeded.js';

export interface MultipartLimits {
  /** Folder for the uploads' temporary files (`DATA_DIR/tmp`). */
  uploadDir: string;
  /** Largest file, and largest total of files, one request may carry. */
  maxFileBytes: number;
  /** Most files one request may carry. */
  maxFiles: number;
  /** A body that sends nothing for this long is dropped (its temporary files removed). */
  bodyIdleTimeoutMs: number;
}

const MAX_FIELDS = 100;
const MAX_FIELDS_BYTES = 1_048_576;
/**
 * Bytes of files one request keeps in memory; the rest go to temporary files. A small upload then
 * costs no file to create, write, read back and remove (file operations on the thread pool and their
 * callbacks on the request thread, for every README), and a large one, or a bulk upload read file by
 * file, holds no more than this.
 */
export const MEMORY_BYTES_PER_REQUEST = 2 * 1_048_576;

/** What is left of a request's memory for files. */
interface MemoryBudget {
  left: number;
}

/**
 * One uploaded file: its bytes in memory while the request's budget lasts; past it, everything
 * received so far and the rest go to its temporary file (named by `onSpill` for removal).
 */
class SpillableFile extends Writable {
  private held: Buffer[] | null = [];
  private heldBytes = 0;
  private disk: WriteStream | null = null;

  constructor(
    private readonly path: string,
    private readonly budget: MemoryBudget,
    private readonly onSpill: (path: string) => void,
  ) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.held && chunk.length <= this.budget.left) {
      this.budget.left -= chunk.length;
      this.heldBytes += chunk.length;
      this.held.push(chunk);
      return callback();
    }
    const disk = this.disk ?? this.spill();
    if (disk.write(chunk)) callback();
    else disk.once('drain', () => callback());
  }

  private spill(): WriteStream {
    this.onSpill(this.path);
    const disk = createWriteStream(this.path);
    disk.on('error', (error) => this.destroy(error));
    for (const chunk of this.held ?? []) disk.write(chunk);
    this.budget.left += this.heldBytes;
    this.held = null;
    this.disk = disk;
    return disk;
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.disk) return callback();
    this.disk.end(() => callback());
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.disk?.destroy();
    callback(error);
  }

  read(): Promise<Buffer> {
    return this.held ? Promise.resolve(Buffer.concat(this.held, this.heldBytes)) : readFile(this.path);
  }
}

const loadFormidable = () => import('formidable');
// Loaded with the first upload, or by `warmMultipart` once the server is up: formidable and its id
// generator cost start-up time otherwise (~0.1–0.2 s), which the first upload paid instead.
let library: ReturnType<typeof loadFormidable> | null = null;

/** Loads the multipart reader ahead of the first upload (called once the server listens). */
export async function warmMultipart(): Promise<void> {
  await (library ??= loadFormidable());
}

/** What a multipart body held: its text fields (each as the list of values sent) and its files. */
export interface MultipartBody {
  fields: Record<string, string[]>;
  files: UploadedFile[];
}

class BodyStalledError extends Error {
  override readonly name = 'BodyStalledError';
}

/** Formidable's limit errors carry the HTTP status they mean (413 for sizes and counts). */
function asHttpError(error: unknown, limits: MultipartLimits): HttpError {
  const status = Number((error as { httpCode?: unknown }).httpCode);
  const message = (error as Error).message;
  if (status === 413) {
    return new HttpError(
      413,
      'payload_too_large',
      `The upload is larger than this endpoint accepts (at most ${limits.maxFiles} files, ${limits.maxFileBytes} bytes): ${message}`,
    );
  }
  return new HttpError(400, 'invalid_multipart', `The multipart body could not be read: ${message}`);
}

/**
 * Reads a multipart/form-data body: files are held in memory up to a budget per request, and past
 * it stream to temporary files under `uploadDir`, which are removed when the request ends (the
 * route's handler reads the files before that), also when the body fails, breaks a limit or stalls.
 * A file part without its own Content-Type (RFC 7578 allows it) is still a file: a part is a file
 * when it names a filename; its type is detected later from its content and name.
 */
export function multipartBody(limits: MultipartLimits): Middleware {
  const dirReady = onceSucceeded(() => mkdir(limits.uploadDir, { recursive: true }));
  return async (ctx, next) => {
    await dirReady();
    const { default: formidable, multipart } = await (library ??= loadFormidable());
    const form = formidable({
      uploadDir: limits.uploadDir,
      maxFiles: limits.maxFiles,
      maxFileSize: limits.maxFileBytes,
      maxTotalFileSize: limits.maxFileBytes * limits.maxFiles,
      maxFields: MAX_FIELDS,
      maxFieldsSize: MAX_FIELDS_BYTES,
      allowEmptyFiles: true,
      minFileSize: 0,
      enabledPlugins: [multipart],
      // Formidable's own names come from cuid2, whose pure-JS SHA-3 cost ~0.5 ms per file: 2 % of
      // the CPU of ingesting a small file. The name is only a temporary file's.
      filename: () => randomUUID(),
      fileWriteStreamHandler: (file?: unknown) => {
        const path = (file as File).filepath;
        const spillable = new SpillableFile(path, budget, (spilled) => onDisk.push(spilled));
        held.set(path, spillable);
        return spillable;
      },
    });
    form.onPart = (part: Part): void => {
      // Formidable takes a part without a type for a text field; one naming a file is a file.
      if (typeof part.originalFilename === 'string' && !part.mimetype)
        part.mimetype = 'application/octet-stream';
      // Formidable's documented hook for custom part handling.
      (form as unknown as { _handlePart(part: Part): void })._handlePart(part);
    };
    const budget: MemoryBudget = { left: MEMORY_BYTES_PER_REQUEST };
    const held = new Map<string, SpillableFile>();
    /** Temporary files written, to remove when the request ends. */
    const onDisk: string[] = [];

    const request = ctx.req;
    let stalled = false;
    const stall = setTimeout(() => {
      stalled = true;
      // Ends the parse (formidable fails on the request's error) without destroying the socket: the
      // client is still there to be told 408, and the answer closes the connection once it is sent.
      request.pause();
      request.emit('error', new BodyStalledError(`no body data for ${limits.bodyIdleTimeoutMs} ms`));
    }, limits.bodyIdleTimeoutMs);
    const alive = (): void => void stall.refresh();
    request.on('data', alive);
    try {
      let parsed: [Fields, Files];
      try {
        parsed = await form.parse(request);
      } catch (error) {
        if (stalled) {
          throw new HttpError(
            408,
            'request_timeout',
            `The request body stalled: no data for ${limits.bodyIdleTimeoutMs} ms`,
            [],
            // The rest of the body will never be read: the connection cannot carry another request.
            { Connection: 'close' },
          );
        }
        throw asHttpError(error, limits);
      } finally {
        clearTimeout(stall);
        request.off('data', alive);
      }
      const [fields, files] = parsed;
      // In the order the request sent them: formidable lists a field's files as they finish writing,
      // and opens each one's stream (`held`) as it begins.
      const sent = [...held.keys()];
      const body: MultipartBody = {
        fields: Object.fromEntries(
          Object.entries(fields).map(([name, values]) => [name, (values ?? []).map(String)]),
        ),
        files: Object.entries(files)
          .flatMap(([field, list]) =>
            (list ?? []).map((file) => ({
              field,
              fileName: cleanFileName(file.originalFilename ?? ''),
              mimeType: file.mimetype ?? null,
              size: file.size,
              path: file.filepath,
            })),
          )
          .sort((a, b) => sent.indexOf(a.path) - sent.indexOf(b.path))
          .map(({ path, ...file }) => ({ ...file, read: () => held.get(path)!.read() })),
      };
      ctx.state['multipart'] = body;
      await next();
    } finally {
      await Promise.all(onDisk.map((path) => rm(path, { force: true })));
    }
  };
}

/** The multipart body `multipartBody` read for this request (empty for other requests). */
export function multipartOf(state: Record<string, unknown>): MultipartBody {
  return (state['multipart'] as MultipartBody | undefined) ?? { fields: {}, files: [] };
}

/**
 * Removes uploads a previous run left behind (a process killed mid-request cannot clean up). Only
 * files older than `olderThanMs` go, so a process sharing the folder keeps its in-flight uploads.
 */
export async function sweepUploads(
  uploadDir: string,
  olderThanMs: number,
  now = Date.now(),
): Promise<number> {
  let names: string[];
  try {
    names = await readdir(uploadDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    const path = join(uploadDir, name);
    const info = await stat(path).catch(() => null);
    if (!info || now - info.mtimeMs < olderThanMs) continue;
    await rm(path, { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}
