import Database from 'better-sqlite3';

/**
 * SQLite's result codes that mean the database cannot serve now rather than that the request is
 * wrong: the disk is full, read-only or failing, the file cannot be opened, memory ran out, or
 * another connection held its lock past the busy timeout. Extended codes (`SQLITE_IOERR_WRITE`…)
 * count with their primary code.
 */
const UNAVAILABLE = [
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_READONLY',
  'SQLITE_CANTOPEN',
  'SQLITE_NOMEM',
  'SQLITE_PROTOCOL',
];

/** Whether `error` is SQLite saying the database cannot serve now (see UNAVAILABLE). */
export function isSqliteUnavailable(error: unknown): error is Error & { code: string } {
  if (!(error instanceof Database.SqliteError)) return false;
  const { code } = error;
  return UNAVAILABLE.some((primary) => code === primary || code.startsWith(`${primary}_`));
}
