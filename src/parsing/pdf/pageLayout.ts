import type { Block, Image } from '../model.js';
import { findAlignedTables } from './alignedTables.js';
import { buildBlocks, type FlowItem } from './blockBuilder.js';
import type { Box } from './geometry.js';
import type { Ruling } from './graphics.js';
import type { PageText } from './pageText.js';
import type { DocumentProfile } from './profile.js';
import { readingOrder, type Line, type Region } from './readingOrder.js';
import { findRuledTables } from './ruledTables.js';
import { boldShare, buildRows } from './rows.js';

/** An image already decoded and kept, with where it sits on the page. */
export interface PlacedImage {
  box: Box;
  image: Image;
}

export interface LayoutInput {
  text: PageText;
  profile: DocumentProfile;
  /** pdf.js ids of the page's bold fonts. */
  boldFonts: ReadonlySet<string>;
  /** pdf.js ids of the page's typewriter (monospace) fonts. */
  monospaceFonts: ReadonlySet<string>;
  /**
   * Whether the typewriter face sets program text apart in this document; not where the document
   * is typed throughout in it (a Courier-only text).
   */
  typewriterStandsOut: boolean;
  tableMode: 'fast' | 'accurate';
  rulings: readonly Ruling[];
  images: readonly PlacedImage[];
}

/** Share of a line's characters that must be bold for the line to count as bold. */
const BOLD_LINE = 0.8;

/**
 * Lays out one page: drawn tables (accurate mode) are cut out first, running headers/footers and bare
 * page numbers dropped, rows put in reading order, column-aligned runs of lines turned into tables,
 * tables and images placed where they stand, and the remaining lines grouped into blocks. Table and
 * image indexes are left at 0 for the caller to number across the document.
 */
export function layoutPage(input: LayoutInput): Block[] {
  const { text, profile, boldFonts } = input;
  const page = text.number;
  const anchored: Array<{ top: number; block: Block }> = [];

  let allRows = text.rows;
  if (input.tableMode === 'accurate' && input.rulings.length > 0) {
    const ruled = findRuledTables(input.rulings, text.runs);
    for (const table of ruled) anchored.push({ top: table.box.y0, block: tableBlock(table.cells, page) });
    const taken = new Set(ruled.flatMap((table) => [...table.runs]));
    if (taken.size > 0) allRows = buildRows(text.runs.filter((run) => !taken.has(run)));
  }
  for (const { box, image } of input.images)
    anchored.push({ top: box.y0, block: { type: 'image', image, page } });

  const running = profile.runningRows(allRows, page, text.height);
  const rows = allRows.filter((row) => !running.has(row));
  const flow: Array<FlowItem & { top: number }> = [];
  const typewriter = (line: Line): boolean =>
    input.typewriterStandsOut && isTypewriterLine(line, input.monospaceFonts);
  for (const region of readingOrder(rows)) {
    const tables = findAlignedTables(region.lines).filter(
      (table) => !isListingOrContents(region.lines.slice(table.start, table.end), typewriter),
    );
    let next = 0;
    for (const table of tables) {
      pushLines(flow, region, region.lines.slice(next, table.start), boldFonts, typewriter);
      const first = region.lines[table.start];
      flow.push({ kind: 'block', block: tableBlock(table.cells, page), top: first ? top(first) : 0 });
      next = table.end;
    }
    pushLines(flow, region, region.lines.slice(next), boldFonts, typewriter);
  }

  anchored.sort((a, b) => a.top - b.top);
  for (const item of anchored) {
    const at = flow.findIndex((element) => element.top >= item.top);
    flow.splice(at < 0 ? flow.length : at, 0, { kind: 'block', block: item.block, top: item.top });
  }
  return buildBlocks(flow, profile, page);
}

function pushLines(
  flow: Array<FlowItem & { top: number }>,
  region: Region,
  lines: Line[],
  boldFonts: ReadonlySet<string>,
  typewriter: (line: Line) => boolean,
): void {
  for (const line of lines) {
    // Bold typewriter text is a command typed in an example ("% scons -Q"), not a heading.
    const bold =
      line.segments.every((segment) => boldShare(segment, boldFonts) >= BOLD_LINE) && !typewriter(line);
    flow.push({ kind: 'line', line, region, bold, top: top(line) });
  }
}

/** Whether every segment of the line is set in a typewriter face. */
function isTypewriterLine(line: Line, monospaceFonts: ReadonlySet<string>): boolean {
  return line.segments.every((segment) => boldShare(segment, monospaceFonts) >= BOLD_LINE);
}

/** A contents entry: the title, a dot leader, the page number. */
const CONTENTS_ENTRY = /(?:\.\s?){4,}\s*\d{1,4}$/;

/** Program syntax: statement ends, braces, comments, preprocessor lines, tags, calls, assignments. */
const CODE_MARK = /[;{}#<>=]|\/\*|\*\/|\/\/|\w\(/;

/**
 * Column-aligned lines that are no table: a program listing (every line in a typewriter face that
 * stands out in the document, half of them or more with program syntax — a table typed in that
 * face, its rules drawn with dashes, has none), or a table of contents (most lines ending in a dot
 * leader and a page number).
 */
function isListingOrContents(lines: readonly Line[], typewriter: (line: Line) => boolean): boolean {
  const share = (test: (line: Line) => boolean): number => lines.filter(test).length / lines.length;
  if (lines.every(typewriter) && share((line) => CODE_MARK.test(line.text)) >= 0.5) return true;
  return share((line) => CONTENTS_ENTRY.test(line.text)) > 0.5;
}

function top(line: Line): number {
  return line.y - line.size;
}

function tableBlock(cells: string[][], page: number): Block {
  return {
    type: 'table',
    table: { index: 0, pageNumber: page, cells, hasHeader: true, caption: null },
    page,
  };
}
