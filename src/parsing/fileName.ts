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
