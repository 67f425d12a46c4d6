import { COLLECTION_NAME } from '../../domain/collection/events.js';
import { KnowledgeUnavailableError } from './knowledgeClient.js';
import { UsageError } from '../usageError.js';

/** The command-line options the people's commands read (parsed by main.ts). */
export interface PeopleOptions {
  url?: string | undefined;
  collection?: string | undefined;
  json?: boolean | undefined;
  limit?: string | undefined;
  concurrency?: string | undefined;
}

/** Exit statuses shared by `ingest`, `search` and `ask`. */
export const EXIT = {
  ok: 0,
  /** A request failed (search, ask), or at least one input was not ingested. */
  failed: 1,
  /** Wrong usage, or the knowledge base cannot be reached at all. */
  unusable: 2,
  /** Ingest: nothing failed, but some inputs were stored already. */
  duplicates: 3,
} as const;

/** An integer option within `min`–`max`, `fallback` when not given. */
export function integerOption(
  value: string | undefined,
  name: string,
  range: { min: number; max: number; fallback: number },
): number {
  if (value === undefined) return range.fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < range.min || number > range.max)
    throw new UsageError(`--${name} takes a whole number from ${range.min} to ${range.max}; got ${value}`);
  return number;
}

/** The `--collection` option, checked as the API checks a collection name. */
export function collectionOption(value: string | undefined): { collection?: string } {
  if (value === undefined) return {};
  if (!COLLECTION_NAME.test(value))
    throw new UsageError(
      `--collection takes lower-case letters, digits, - and _ (starting with a letter or digit); got ${value}`,
    );
  return { collection: value };
}

/**
 * What a command says and answers when it cannot go on: its usage for a wrong command line, one
 * line on standard error otherwise (2 when nothing could be done, else 1).
 */
export function exitStatusOf(error: unknown, usage: string): number {
  if (error instanceof UsageError) {
    process.stderr.write(`archivist: ${error.message}\n\nUsage:\n${usage}\n`);
    return EXIT.unusable;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`archivist: ${message}\n`);
  return error instanceof KnowledgeUnavailableError ? EXIT.unusable : EXIT.failed;
}

/** One line of at most `width` characters (an excerpt spans lines and runs of spaces). */
export function oneLine(text: string, width: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > width ? `${line.slice(0, width - 1)}…` : line;
}

/** Where a passage is: its pages and the headings enclosing it. */
export function whereIn(passage: {
  pageStart: number | null;
  pageEnd: number | null;
  sectionPath: readonly string[];
}): string {
  const pages =
    passage.pageStart === null
      ? ''
      : passage.pageEnd !== null && passage.pageEnd !== passage.pageStart
        ? `pp. ${passage.pageStart}–${passage.pageEnd}`
        : `p. ${passage.pageStart}`;
  return [pages, passage.sectionPath.join(' › ')].filter((part) => part.length > 0).join(', ');
}
