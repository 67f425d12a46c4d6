import type { RstTable } from './rstTables.js';

/** What the reStructuredText reader produces before it becomes model blocks. */
export type RstBlock =
  | { kind: 'heading'; text: string; level: number }
  | { kind: 'paragraph'; text: string }
  | { kind: 'literal'; text: string }
  | { kind: 'list'; ordered: boolean; items: RstItem[] }
  | { kind: 'table'; table: RstTable; caption: string | null }
  | { kind: 'image'; src: string | null; alt: string | null };

export interface RstItem {
  text: string;
  /** Later paragraphs, nested lists and literal blocks of the item. */
  children: RstBlock[];
}

/** Shared by the reader and the directive handlers while one document is read. */
/**
 * Reads nested body text (a directive's content) as blocks. Passed in by the reader, which directives
 * are part of, so that the two modules do not import each other.
 */
export type ReadNestedBlocks = (lines: readonly string[], state: RstState, depth: number) => RstBlock[];

export interface RstState {
  /** Adornment styles in order of first appearance: the index is the section level − 1. */
  styles: string[];
  /** Bibliographic fields (`:Author:`, `:Title:`, `:Date:`…) found in the docinfo position. */
  fields: Record<string, string>;
  /** Title set by a `.. title::` directive. */
  title: string | null;
  /** True until the first body element: a field list here is the docinfo. */
  docinfoOpen: boolean;
  headingCount: number;
  maxDepth: number;
  fileName: string;
}

/** Removes the common indentation of the non-blank lines. */
export function dedent(lines: readonly string[]): string[] {
  let common = Infinity;
  for (const line of lines) {
    if (line.trim() === '') continue;
    common = Math.min(common, line.length - line.trimStart().length);
  }
  if (!Number.isFinite(common) || common === 0) return [...lines];
  return lines.map((line) => line.slice(common));
}

export function isBlank(line: string | undefined): boolean {
  return line === undefined || line.trim() === '';
}

/** Index after the indented block starting at `from` (stops at the first unindented line). */
export function indentedBlockEnd(lines: readonly string[], from: number): number {
  let end = from;
  let lastContent = from - 1;
  while (end < lines.length) {
    const line = lines[end] ?? '';
    if (line.trim() !== '') {
      if (!/^\s/.test(line)) break;
      lastContent = end;
    }
    end += 1;
  }
  return lastContent + 1;
}
