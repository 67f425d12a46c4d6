import type { ParseContext } from '../context.js';
import type { ParsedDocument } from '../model.js';
import { createDocumentBuilder, type DocumentBuilder } from './documentBuilder.js';
import { readTextInput, splitLines, tidyLine, tidyLines } from './input.js';
import { createIndentTracker, indentOf, matchListMarker, type ListMarker } from './listItems.js';

/** A line made of one repeated adornment character, as plain-text authors underline titles. */
const UNDERLINE = /^\s*([=\-~*#^+_])\1{2,}\s*$/;
const UNDERLINE_LEVEL: Record<string, number> = {
  '=': 1,
  '#': 1,
  '-': 2,
  '~': 3,
  '^': 3,
  '*': 3,
  '+': 3,
  _: 3,
};
/** "2.3 Results" / "4. Discussion": up to three digits per component, a title-like text after. */
const NUMBERED_HEADING = /^(\d{1,3}(?:\.\d{1,3})*)\.?\s+(\S.*)$/u;

interface Paragraph {
  lines: string[];
}

/**
 * Plain text: paragraphs are separated by blank lines, a form feed starts a new page, bullet and
 * numbered lines become lists. Headings only where the text marks them beyond doubt: a short line
 * underlined with `===`/`---`/`~~~`, or a numbered title ("1.2 Scope") standing alone.
 */
export async function parseTxt(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const { text, encoding } = readTextInput(bytes, ctx);
  const builder = createDocumentBuilder(ctx, '.txt');
  const pages = text.split('\f');
  // Tools such as pdftotext end every page with a form feed: the text after the last one is no page.
  while (pages.length > 1 && (pages[pages.length - 1] ?? '').trim() === '') pages.pop();

  for (const [index, pageText] of pages.entries()) {
    if (index > 0) {
      builder.startPage();
      await builder.checkpoint();
    }
    const paragraphs = mergeListParagraphs(splitParagraphs(splitLines(pageText)));
    for (const [i, paragraph] of paragraphs.entries()) {
      emitParagraph(builder, paragraph, paragraphs[i - 1], paragraphs[i + 1]);
      if ((i & 0x7ff) === 0x7ff) await builder.checkpoint();
    }
  }
  return builder.finish({ extra: { encoding } });
}

function splitParagraphs(lines: readonly string[]): Paragraph[] {
  const paragraphs: Paragraph[] = [];
  let current: string[] = [];
  for (const line of lines) {
    if (line.trim() === '') {
      if (current.length > 0) paragraphs.push({ lines: current });
      current = [];
    } else {
      current.push(line.replace(/\s+$/, ''));
    }
  }
  if (current.length > 0) paragraphs.push({ lines: current });
  return paragraphs;
}

/**
 * A list whose items are separated by blank lines arrives as one paragraph per item: join
 * neighbouring paragraphs made only of items of the same kind back into one list.
 */
function mergeListParagraphs(paragraphs: readonly Paragraph[]): Paragraph[] {
  const merged: Paragraph[] = [];
  let previousKind: boolean | null = null;
  for (const paragraph of paragraphs) {
    const kind = listKind(paragraph);
    const last = merged[merged.length - 1];
    if (kind !== null && kind === previousKind && last) last.lines.push(...paragraph.lines);
    else merged.push({ lines: [...paragraph.lines] });
    previousKind = kind;
  }
  return merged;
}

/** `true`/`false` (ordered or not) when every line is a strong list item or continues one. */
function listKind(paragraph: Paragraph): boolean | null {
  const first = matchListMarker(paragraph.lines[0] ?? '');
  if (!first || first.weak) return null;
  for (const line of paragraph.lines.slice(1)) {
    const marker = matchListMarker(line);
    if (marker ? marker.weak || marker.ordered !== first.ordered : indentOf(line) === 0) return null;
  }
  return first.ordered;
}

function emitParagraph(
  builder: DocumentBuilder,
  paragraph: Paragraph,
  previous: Paragraph | undefined,
  next: Paragraph | undefined,
): void {
  const { lines } = paragraph;
  if (lines.every((line) => UNDERLINE.test(line))) return; // a separator rule, not content

  const numbered = lines.length === 1 ? numberedHeading(lines[0] ?? '') : null;
  if (numbered && !looksLikeListSequence(numbered.number, previous, next)) {
    builder.heading(numbered.text, numbered.level);
    return;
  }

  let run: string[] = [];
  const flush = (): void => {
    if (run.length > 0) emitBody(builder, run);
    run = [];
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const below = lines[i + 1];
    const underline = below !== undefined ? UNDERLINE.exec(below) : null;
    if (underline && isTitleLine(line, below ?? '')) {
      // An overline of the same character above the title belongs to the adornment.
      if (run.length > 0 && (run[run.length - 1] ?? '').trim() === (below ?? '').trim()) run.pop();
      flush();
      builder.heading(tidyLine(line), UNDERLINE_LEVEL[underline[1] ?? '-'] ?? 2);
      i += 1;
      continue;
    }
    run.push(line);
  }
  flush();
}

function isTitleLine(line: string, underline: string): boolean {
  const title = tidyLine(line);
  if (title.length === 0 || title.length > 120 || UNDERLINE.test(line) || matchListMarker(line)) return false;
  // The underline should roughly span the title, as in every convention that uses one. A rule much
  // longer than the line above is a separator or a block delimiter (AsciiDoc's ---- around listings,
  // a text dump's ____ between sections), not an underline.
  const length = underline.trim().length;
  return (
    length >= Math.min(title.length * 0.5, 3) &&
    length >= 3 &&
    length <= title.length + Math.max(4, title.length / 4)
  );
}

function numberedHeading(line: string): { number: number; text: string; level: number } | null {
  const match = NUMBERED_HEADING.exec(line.trim());
  if (!match) return null;
  const [, label = '', title = ''] = match;
  const text = tidyLine(line);
  if (text.length > 80 || /[.,;:!?]$/.test(title) || !/^[\p{Lu}\p{Lo}]/u.test(title)) return null;
  const parts = label.split('.');
  return { number: Number(parts[parts.length - 1]), text, level: Math.min(6, parts.length) };
}

/** "1. Buy milk" followed by "2. Buy eggs" (blank lines between) is a list, not two chapters. */
function looksLikeListSequence(number: number, previous?: Paragraph, next?: Paragraph): boolean {
  const single = (p?: Paragraph): ListMarker | null =>
    p && p.lines.length === 1 ? matchListMarker(p.lines[0] ?? '') : null;
  return single(previous)?.number === number - 1 || single(next)?.number === number + 1;
}

/** Lines of one paragraph without headings: alternating runs of prose and list items. */
function emitBody(builder: DocumentBuilder, lines: readonly string[]): void {
  const markers = lines.map((line) => matchListMarker(line));
  const itemCount = markers.filter((marker) => marker !== null).length;
  const strongItems = markers.filter((marker) => marker !== null && !marker.weak).length;
  // Letters and roman numerals ("A. Smith said") only count when several lines carry them.
  const acceptWeak = itemCount >= 2;
  const isItem = (marker: ListMarker | null): marker is ListMarker =>
    marker !== null && (!marker.weak || acceptWeak);
  if (strongItems === 0 && !acceptWeak) {
    builder.paragraph(tidyLines(lines));
    return;
  }

  let prose: string[] = [];
  let items: string[] = [];
  let ordered = false;
  let itemColumn = 0;
  let indentPrefix = createIndentTracker();
  const flushProse = (): void => {
    if (prose.length > 0) builder.paragraph(tidyLines(prose));
    prose = [];
  };
  const flushList = (): void => {
    if (items.length > 0) builder.list(items, ordered);
    items = [];
    indentPrefix = createIndentTracker();
  };

  for (const [i, line] of lines.entries()) {
    const marker = markers[i] ?? null;
    if (isItem(marker)) {
      flushProse();
      if (items.length === 0) ordered = marker.ordered;
      items.push(indentPrefix(marker.indent) + tidyLine(marker.text));
      itemColumn = marker.textColumn;
    } else if (items.length > 0 && indentOf(line) >= Math.min(itemColumn, 2)) {
      // An indented line continues the item above it.
      items[items.length - 1] = `${items[items.length - 1] ?? ''} ${tidyLine(line)}`;
    } else {
      flushList();
      prose.push(line);
    }
  }
  flushProse();
  flushList();
}
