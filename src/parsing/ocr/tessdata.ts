import { copyFileSync, lstatSync, mkdirSync, readlinkSync, renameSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { OCR_LANGUAGES, type OcrLanguage } from '../context.js';

/**
 * The LSTM "best_int" models: as accurate as "best" at a fraction of the size, and the only variant
 * the LSTM-only tesseract.js core needs (no legacy engine data).
 */
const MODEL_FOLDER = '4.0.0_best_int';

const require = createRequire(import.meta.url);

/** Absolute path of the gzipped traineddata file of one language inside its npm package. */
export function packagedTraineddata(language: OcrLanguage): string {
  const packageJson = require.resolve(`@tesseract.js-data/${language}/package.json`);
  return join(dirname(packageJson), MODEL_FOLDER, `${language}.traineddata.gz`);
}

/**
 * Returns a local folder holding `<lang>.traineddata.gz` for every language, creating it once.
 *
 * tesseract.js loads all languages of a worker from one `langPath`, and each npm package holds only
 * its own language, so the files are linked (or copied where links are refused) into one folder. The
 * default folder is under `os.tmpdir()`, named per user and per installation, so two checkouts never
 * share it. A local path here is what keeps tesseract.js from fetching traineddata from a CDN.
 */
export function ensureTessdataDir(folder?: string): string {
  const sources = OCR_LANGUAGES.map((language) => ({ language, source: packagedTraineddata(language) }));
  const target = folder ?? defaultFolder(sources.map((entry) => entry.source));
  mkdirSync(target, { recursive: true, mode: 0o700 });
  if (folder === undefined) assertOwnFolder(target);
  for (const { language, source } of sources) {
    const destination = join(target, `${language}.traineddata.gz`);
    if (isCurrent(destination, source, statSync(source).size)) continue;
    // Built under a unique name and renamed over the old entry: atomic, and never a write through an
    // existing link (which would overwrite the packaged file), even with several processes at once.
    const temporary = `${destination}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
    try {
      symlinkSync(source, temporary);
    } catch {
      copyFileSync(source, temporary);
    }
    renameSync(temporary, destination);
  }
  return target;
}

/** A shared temporary folder someone else created could hold planted files: refuse it. */
function assertOwnFolder(target: string): void {
  const uid = process.getuid?.();
  if (uid !== undefined && statSync(target).uid !== uid) {
    throw new Error(`${target} belongs to another user; pass tessdataDir to use another folder`);
  }
}

function defaultFolder(sources: string[]): string {
  const installation = createHash('sha256').update(sources.join('\n')).digest('hex').slice(0, 12);
  return join(tmpdir(), `archivist-tessdata-${safeUserName()}-${installation}`);
}

function safeUserName(): string {
  try {
    return userInfo().username.replace(/[^A-Za-z0-9_-]/g, '_') || 'user';
  } catch {
    return 'user';
  }
}

/** A link to the packaged file, or a copy of the same size, is reused; anything else is replaced. */
function isCurrent(destination: string, source: string, sourceSize: number): boolean {
  try {
    const entry = lstatSync(destination);
    if (entry.isSymbolicLink()) return readlinkSync(destination) === source;
    return entry.isFile() && entry.size === sourceSize;
  } catch {
    return false;
  }
}
