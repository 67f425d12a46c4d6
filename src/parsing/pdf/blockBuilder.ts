import type { Block } from '../model.js';
import { admonitionLabel } from './admonitions.js';
import { append } from './geometry.js';
import { readListStart } from './lists.js';
import { HEADING_RATIO, MAX_HEADING_WORDS, sizeKey, type DocumentProfile } from './profile.js';
import type { Line, Region } from './readingOrder.js';

/** What the page layout hands over: lines with their region, and finished blocks (tables, images). */
export type FlowItem =
  { kind: 'line'; line: Line; region: Region; bold: boolean } | { kind: 'block'; block: Block };

/** A paragraph breaks where lines are farther apart than this times the usual line pitch. */
const PARAGRAPH_GAP = 1.3;
/** A first-line indent of at least this (ems) starts a paragraph. */
const INDENT = 0.8;
/** A line ending a sentence this short (share of the region width) ends its paragraph. */
const SHORT_LINE = 0.65;
/** Bold lines at body size are headings only when this short (words). */
const MAX_BOLD_HEADING_WORDS = 12;
/** A heading wraps over at most this many lines; more is a paragraph set in a large font. */
const MAX_HEADING_LINES = 3;

interface Paragraph {
  kind: 'paragraph';
  lines: Line[];
  region: Region;
  /** An admonition box's label ("Tip"): its first line, written "Tip: " before the box's text. */
  label?: string;
}
interface Heading {
  kind: 'heading';
  lines: Line[];
  region: Region;
  level: number;
}
interface List {
  kind: 'list';
  ordered: boolean;
  items: string[][];
  region: Region;
  textX: number;
  last: Line;
}
type Open = Paragraph | Heading | List;

/**
 * Turns lines in reading order into headings, paragraphs and lists (`page` is the page number).
 * Paragraph lines are joined with "\n" so the cleaning stage can undo end-of-line hyphenation.
 */
export function buildBlocks(flow: readonly FlowItem[], profile: DocumentProfile, page: number): Block[] {
  const pitch = linePitches(flow, profile);
  const rightAligned = alignments(flow);
  const blocks: Block[] = [];
  let open: Open | null = null;
  const flush = (): void => {
    if (open) blocks.push(close(open, page));
    open = null;
  };

  for (const item of flow) {
    if (item.kind === 'block') {
      flush();
      blocks.push(item.block);
      continue;
    }
    const { line, region, bold } = item;
    const label = admonitionLabel(line.text);
    if (label !== null) {
      flush();
      open = { kind: 'paragraph', lines: [line], region, label };
      continue;
    }
    const level = headingLevel(line, bold, profile);
    if (level !== null) {
      if (open?.kind === 'heading' && continuesHeading(open, line, level, region)) open.lines.push(line);
      else {
        flush();
        open = { kind: 'heading', lines: [line], region, level };
      }
      continue;
    }
    if (
      open?.kind === 'heading' &&
      open.lines.length >= MAX_HEADING_LINES &&
      continuesHeading(open, line, open.level, region)
    ) {
      // A long run of large lines: it was a paragraph all along.
      open = { kind: 'paragraph', lines: [...open.lines, line], region };
      continue;
    }
    const start = readListStart(line.text);
    if (open?.kind === 'paragraph' && open.label && open.lines.length === 1 && open.region === region) {
      // The box's first line, however it is set (a list item too), follows its label.
      open.lines.push(line);
      continue;
    }
    if (start) {
      if (open?.kind === 'list' && open.ordered === start.ordered && open.region === region) {
        open.items.push([start.text]);
        open.textX = line.contentX0;
        open.last = line;
      } else {
        flush();
        open = {
          kind: 'list',
          ordered: start.ordered,
          items: [[start.text]],
          region,
          textX: line.contentX0,
          last: line,
        };
      }
      continue;
    }
    if (open?.kind === 'list' && continuesListItem(open, line, region, pitch, rightAligned.has(region))) {
      open.items[open.items.length - 1]?.push(line.text);
      open.last = line;
      continue;
    }
    if (
      open?.kind === 'paragraph' &&
      continuesParagraph(open, line, region, pitch, rightAligned.has(region))
    ) {
      open.lines.push(line);
      continue;
    }
    flush();
    open = { kind: 'paragraph', lines: [line], region };
  }
  flush();
  return blocks;
}

function close(open: Open, page: number): Block {
  switch (open.kind) {
    case 'heading':
      if (open.lines.length > MAX_HEADING_LINES) return paragraphBlock(open.lines, page);
      return {
        type: 'heading',
        // Joined as paragraph lines are, so cleaning undoes the hyphenation of a wrapped title too.
        text: open.lines.map((line) => line.text).join('\n'),
        level: open.level,
        page,
      };
    case 'list':
      return {
        type: 'list',
        items: open.items.map((lines) => lines.join('\n')),
        ordered: open.ordered,
        page,
      };
    case 'paragraph':
      return paragraphBlock(open.lines, page, open.label);
  }
}

function paragraphBlock(lines: Line[], page: number, label?: string): Block {
  const [, ...rest] = lines;
  const text =
    label !== undefined && rest.length > 0
      ? `${label}: ${rest.map((line) => line.text).join('\n')}`
      : lines.map((line) => line.text).join('\n');
  return { type: 'paragraph', text, page };
}

/**
 * Heading level from font size: sizes larger than the body rank by size (largest = 1); a bold line at
 * body size ranks below every larger size. Levels are capped at 6.
 */
function headingLevel(line: Line, bold: boolean, profile: DocumentProfile): number | null {
  // Two letters at least: a lone drop cap or a big digit is no heading.
  if (line.text.length > 200 || !/\p{L}.*\p{L}/u.test(line.text)) return null;
  const words = line.text.split(' ').length;
  const key = sizeKey(line.size);
  const rank = 1 + profile.headingSizes.filter((size) => size > key).length;
  if (key >= profile.bodySize * HEADING_RATIO && words <= MAX_HEADING_WORDS) return Math.min(6, rank);
  if (
    bold &&
    key >= profile.bodySize * 0.95 &&
    words <= MAX_BOLD_HEADING_WORDS &&
    !readListStart(line.text)
  ) {
    return Math.min(6, rank);
  }
  return null;
}

function continuesHeading(open: Heading, line: Line, level: number, region: Region): boolean {
  const last = open.lines[open.lines.length - 1];
  if (!last || open.region !== region || level !== open.level) return false;
  return sizeKey(line.size) === sizeKey(last.size) && line.y - last.y <= 1.6 * line.size;
}

function continuesListItem(
  open: List,
  line: Line,
  region: Region,
  pitch: Map<number, number>,
  fromRight: boolean,
): boolean {
  if (open.region !== region) return false;
  const gap = line.y - open.last.y;
  const expected = pitch.get(sizeKey(line.size)) ?? 1.2 * line.size;
  const indented = fromRight
    ? line.x1 <= open.last.x1 + 0.5 * line.size
    : line.x0 >= open.textX - 0.5 * line.size;
  return indented && gap > 0 && gap <= expected * PARAGRAPH_GAP + 0.5;
}

/**
 * Whether the line continues the open paragraph: same region and size, the usual line pitch, no
 * first-line indent, and the previous line did not stop short after a sentence. `fromRight`: lines
 * start at the right edge (right-aligned or right-to-left text).
 */
function continuesParagraph(
  open: Paragraph,
  line: Line,
  region: Region,
  pitch: Map<number, number>,
  fromRight: boolean,
): boolean {
  const last = open.lines[open.lines.length - 1];
  const previous = open.lines[open.lines.length - 2];
  if (!last || open.region !== region) return false;
  if (Math.abs(line.size - last.size) > Math.max(1, 0.1 * last.size)) return false;
  const gap = line.y - last.y;
  const expected = previous ? last.y - previous.y : (pitch.get(sizeKey(line.size)) ?? 1.2 * line.size);
  if (gap <= 0 || gap > expected * PARAGRAPH_GAP + 0.5) return false;
  const em = line.size;
  const width = region.x1 - region.x0;
  if (fromRight) {
    if (line.x1 < last.x1 - INDENT * em) return false;
    if (last.x0 > region.x1 - SHORT_LINE * width && endsSentence(last.text)) return false;
  } else {
    if (line.x0 > last.x0 + INDENT * em) return false;
    if (last.x1 < region.x0 + SHORT_LINE * width && endsSentence(last.text)) return false;
  }
  return true;
}

function endsSentence(text: string): boolean {
  return /[.!?:؟。]["'”’)\]]?$/u.test(text);
}

/**
 * Regions whose lines start at the right: more lines flush with the right edge than with the left
 * (justified lines count for both), or, when as many, mostly right-to-left lines.
 */
function alignments(flow: readonly FlowItem[]): Set<Region> {
  const counts = new Map<Region, { left: number; right: number; rtl: number; total: number }>();
  for (const item of flow) {
    if (item.kind !== 'line') continue;
    const { line, region } = item;
    const count = counts.get(region) ?? { left: 0, right: 0, rtl: 0, total: 0 };
    if (Math.abs(line.x0 - region.x0) <= 1.5) count.left += 1;
    if (Math.abs(line.x1 - region.x1) <= 1.5) count.right += 1;
    if (line.rtl) count.rtl += 1;
    count.total += 1;
    counts.set(region, count);
  }
  const right = new Set<Region>();
  for (const [region, count] of counts) {
    if (count.right > count.left || (count.right === count.left && count.rtl * 2 > count.total))
      right.add(region);
  }
  return right;
}

/**
 * The usual distance between consecutive lines of each font size: the document's (from the profile)
 * when it has seen enough lines of that size, else this page's (a low quantile, so that gaps between
 * paragraphs do not count).
 */
function linePitches(flow: readonly FlowItem[], profile: DocumentProfile): Map<number, number> {
  const deltas = new Map<number, number[]>();
  let previous: { line: Line; region: Region } | null = null;
  for (const item of flow) {
    if (item.kind !== 'line') {
      previous = null;
      continue;
    }
    if (previous && previous.region === item.region) {
      const key = sizeKey(item.line.size);
      const delta = item.line.y - previous.line.y;
      if (key === sizeKey(previous.line.size) && delta > 0.8 * item.line.size && delta < 3 * item.line.size) {
        append(deltas, key, delta);
      }
    }
    previous = item;
  }
  const pitch = new Map<number, number>();
  for (const [key, values] of deltas) {
    values.sort((a, b) => a - b);
    pitch.set(key, values[Math.floor((values.length - 1) / 4)] ?? 1.2 * key);
  }
  for (const item of flow) {
    if (item.kind !== 'line') continue;
    const key = sizeKey(item.line.size);
    const known = profile.linePitch(key);
    if (known !== null) pitch.set(key, known);
  }
  return pitch;
}
