/** The file name without directories, as the model's `sourceFile` wants it. */
export function baseName(fileName: string): string {
  const parts = fileName.split(/[\\/]/);
  return parts[parts.length - 1] ?? fileName;
}

/** The file name without directories and extension (`docs/Report.final.pdf` → `Report.final`): the title of last resort. */
export function titleFromFileName(fileName: string): string {
  const base = baseName(fileName);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(0, dot) : base;
}

const MAX_NAME_CHARS = 255;

/** A file name safe to store and echo: no directories, no control characters, bounded length. */
export function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  // Control characters, and format characters such as bidi overrides that disguise an extension.
  const clean = base.replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
  if (clean.length <= MAX_NAME_CHARS) return clean || 'unnamed';
  const dot = clean.lastIndexOf('.');
  const extension = dot > 0 && clean.length - dot <= 10 ? clean.slice(dot) : '';
  return clean.slice(0, MAX_NAME_CHARS - extension.length) + extension;
}

/** A path inside an upload (a folder's file, an archive's entry) safe to store: clean segments, no `..`, bounded. */
export function cleanPath(path: string): string {
  return path
    .split(/[\\/]/)
    .map(cleanFileName)
    .filter((segment) => segment !== '..' && segment !== '.' && segment !== 'unnamed')
    .join('/')
    .slice(-1_000);
}
