import { ParseError } from '../errors.js';
import { tidyLines } from './input.js';
import { matchListMarker, type ListMarker } from './listItems.js';
import { readExplicitMarkup } from './rstDirectives.js';
import { rstInlineText } from './rstInline.js';
import { dedent, indentedBlockEnd, isBlank, type RstBlock, type RstItem, type RstState } from './rstModel.js';
import {
  GRID_BORDER,
  parseGridTable,
  parseSimpleTable,
  SIMPLE_ANY_BORDER,
  SIMPLE_BORDER,
} from './rstTables.js';

/** A line of one punctuation character repeated: a section adornment or a transition. */
const ADORNMENT = /^([!-/:-@[-`{-~])\1+\s*$/;
const FIELD = /^:((?:[^:\\]|\\.)+):(?:\s+(.*))?$/;
const BIBLIOGRAPHIC_CONTENT = new Set(['abstract', 'dedication']);

/**
 * Reads the body elements of `lines` (already dedented). Section titles are only recognised at
 * the top level, as in reStructuredText, where they cannot be indented; nested blocks (list items,
 * block quotes, directive content) recurse with `depth + 1`, bounded by `state.maxDepth`.
 */
export function readRstBlocks(lines: readonly string[], state: RstState, depth = 0): RstBlock[] {
  if (depth > state.maxDepth) {
    throw new ParseError(
      'too_complex',
      `${state.fileName}: blocks nest more than ${state.maxDepth} levels deep`,
    );
  }
  const top = depth === 0;
  const out: RstBlock[] = [];
  const push = (block: RstBlock): void => {
    out.push(block);
    if (top && block.kind !== 'heading') state.docinfoOpen = false;
  };
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (isBlank(line)) {
      i += 1;
      continue;
    }
    if (/^\s/.test(line)) {
      // An indented block that no construct above claimed: a block quote.
      const end = indentedBlockEnd(lines, i);
      for (const block of readRstBlocks(dedent(lines.slice(i, end)), state, depth + 1)) push(block);
      i = end;
      continue;
    }
    if (top) {
      const title = matchTitle(lines, i);
      if (title) {
        if (!state.styles.includes(title.style)) state.styles.push(title.style);
        state.headingCount += 1;
        if (state.headingCount > 2) state.docinfoOpen = false;
        out.push({
          kind: 'heading',
          text: rstInlineText(title.text),
          level: state.styles.indexOf(title.style) + 1,
        });
        i = title.next;
        continue;
      }
    }
    if (ADORNMENT.test(line) && line.trim().length >= 4 && isBlank(lines[i + 1])) {
      i += 1; // a transition: no content
      continue;
    }
    if (/^\.\.(\s|$)/.test(line)) {
      const end = indentedBlockEnd(lines, i + 1);
      for (const block of readExplicitMarkup(lines.slice(i, end), state, depth, readRstBlocks)) push(block);
      i = end;
      continue;
    }
    const grid = GRID_BORDER.test(line);
    if (grid || SIMPLE_BORDER.test(line)) {
      const end = grid ? gridTableEnd(lines, i) : simpleTableEnd(lines, i);
      const block = lines.slice(i, end);
      // A table that does not parse is shown as it was written.
      const table = grid ? parseGridTable(block) : parseSimpleTable(block);
      push(table ? { kind: 'table', table, caption: null } : { kind: 'literal', text: block.join('\n') });
      i = end;
      continue;
    }
    if (FIELD.test(line)) {
      i = readFieldList(lines, i, state, top, push);
      continue;
    }
    const marker = matchListMarker(line);
    if (marker && marker.indent === 0 && startsList(lines, i, marker)) {
      i = readList(lines, i, marker, state, depth, push);
      continue;
    }
    if (/^\|(\s|$)/.test(line)) {
      let end = i;
      while (end < lines.length && /^(\||\s+\S)/.test(lines[end] ?? '')) end += 1;
      push({
        kind: 'paragraph',
        text: tidyLines(lines.slice(i, end).map((l) => rstInlineText(l.replace(/^\|\s?/, '')))),
      });
      i = end;
      continue;
    }
    if (line.startsWith('>>>')) {
      let end = i;
      while (end < lines.length && !isBlank(lines[end])) end += 1;
      push({ kind: 'literal', text: lines.slice(i, end).join('\n') });
      i = end;
      continue;
    }
    i = readParagraph(lines, i, state, depth, push);
  }
  return out;
}

function matchTitle(
  lines: readonly string[],
  i: number,
): { text: string; style: string; next: number } | null {
  const line = lines[i] ?? '';
  const next = lines[i + 1];
  const over = ADORNMENT.exec(line);
  if (over && next !== undefined && !isBlank(next) && !ADORNMENT.test(next)) {
    const under = lines[i + 2];
    const text = next.trim();
    if (
      under !== undefined &&
      under.trim() === line.trim() &&
      line.trim().length >= Math.min(text.length, 4)
    ) {
      return { text, style: `over${over[1] ?? ''}`, next: i + 3 };
    }
    return null;
  }
  const under = next !== undefined ? ADORNMENT.exec(next) : null;
  if (!under || ADORNMENT.test(line)) return null;
  const text = line.trim();
  const length = (next ?? '').trim().length;
  return length >= text.length || length >= 4 ? { text, style: `under${under[1] ?? ''}`, next: i + 2 } : null;
}

/** A grid table runs while lines start with `+` or `|`. */
function gridTableEnd(lines: readonly string[], start: number): number {
  let end = start;
  while (end < lines.length && /^[+|]/.test(lines[end] ?? '')) end += 1;
  return end;
}

/** A simple table ends at a border line followed by a blank line (or the end). */
function simpleTableEnd(lines: readonly string[], start: number): number {
  for (let j = start + 1; j < lines.length; j += 1) {
    if (SIMPLE_ANY_BORDER.test(lines[j] ?? '') && isBlank(lines[j + 1])) return j + 1;
  }
  return lines.length;
}

function readFieldList(
  lines: readonly string[],
  start: number,
  state: RstState,
  top: boolean,
  push: (block: RstBlock) => void,
): number {
  const fields: Array<[string, string]> = [];
  let i = start;
  while (i < lines.length) {
    const match = FIELD.exec(lines[i] ?? '');
    if (!match) break;
    const end = indentedBlockEnd(lines, i + 1);
    const body = [match[2] ?? '', ...dedent(lines.slice(i + 1, end))];
    fields.push([rstInlineText(match[1] ?? ''), tidyLines(body.map(rstInlineText))]);
    i = end;
    while (isBlank(lines[i]) && i < lines.length && FIELD.test(lines[i + 1] ?? '')) i += 1;
  }
  if (top && state.docinfoOpen) {
    for (const [name, value] of fields) {
      const key = name.trim().toLowerCase();
      if (BIBLIOGRAPHIC_CONTENT.has(key)) push({ kind: 'paragraph', text: `${name}: ${value}` });
      else state.fields[key] = value;
    }
    state.docinfoOpen = false;
  } else {
    push({ kind: 'paragraph', text: fields.map(([name, value]) => `${name}: ${value}`).join('\n') });
  }
  return i;
}

/**
 * Bullets always start a list. An enumerator must be followed by a blank line, an indented line or
 * another item ("A. Einstein was\nborn in Ulm." is a paragraph), and a letter or roman enumerator
 * needs a second item, since a sentence can start with one.
 */
function startsList(lines: readonly string[], i: number, marker: ListMarker): boolean {
  if (!marker.ordered) return true;
  const next = lines[i + 1];
  if (!isBlank(next) && !/^\s/.test(next ?? '') && !matchListMarker(next ?? '')) return false;
  if (!marker.weak) return true;
  for (let j = i + 1; j < lines.length; j += 1) {
    const line = lines[j] ?? '';
    if (isBlank(line) || /^\s/.test(line)) continue;
    const other = matchListMarker(line);
    return other !== null && other.ordered && other.indent === 0;
  }
  return false;
}

function readList(
  lines: readonly string[],
  start: number,
  first: ListMarker,
  state: RstState,
  depth: number,
  push: (block: RstBlock) => void,
): number {
  const items: RstItem[] = [];
  let i = start;
  while (i < lines.length) {
    const marker = matchListMarker(lines[i] ?? '');
    if (!marker || marker.indent !== 0 || marker.ordered !== first.ordered) break;
    const end = indentedBlockEnd(lines, i + 1);
    const body = [marker.text, ...dedent(lines.slice(i + 1, end))];
    const blocks = readRstBlocks(body, state, depth + 1);
    const [head, ...rest] = blocks;
    items.push(
      head?.kind === 'paragraph' ? { text: head.text, children: rest } : { text: '', children: blocks },
    );
    i = end;
    while (i < lines.length && isBlank(lines[i])) i += 1;
  }
  push({ kind: 'list', ordered: first.ordered, items });
  return i;
}

function readParagraph(
  lines: readonly string[],
  start: number,
  state: RstState,
  depth: number,
  push: (block: RstBlock) => void,
): number {
  let i = start;
  while (i < lines.length && !isBlank(lines[i]) && !/^\s/.test(lines[i] ?? '')) i += 1;
  const paragraph = lines.slice(start, i);

  // One unindented line followed at once by indented lines: a definition list item.
  if (paragraph.length === 1 && i < lines.length && /^\s+\S/.test(lines[i] ?? '')) {
    const end = indentedBlockEnd(lines, i);
    const definition = readRstBlocks(dedent(lines.slice(i, end)), state, depth + 1);
    const text = definition.flatMap((block) => ('text' in block ? [block.text] : [])).join('\n');
    push({ kind: 'paragraph', text: `${rstInlineText(paragraph[0] ?? '')}\n${text}` });
    return end;
  }

  const raw = paragraph.join('\n');
  const literalFollows = /::\s*$/.test(raw);
  const text = literalFollows
    ? raw.replace(/\s*::\s*$/, (marker) => (/\s::/.test(marker) || raw.trim() === '::' ? '' : ':'))
    : raw;
  if (text.trim()) push({ kind: 'paragraph', text: tidyLines(text.split('\n').map(rstInlineText)) });
  if (!literalFollows) return i;

  let j = i;
  while (j < lines.length && isBlank(lines[j])) j += 1;
  if (j >= lines.length) return j;
  if (/^\s/.test(lines[j] ?? '')) {
    const end = indentedBlockEnd(lines, j);
    push({ kind: 'literal', text: dedent(lines.slice(j, end)).join('\n') });
    return end;
  }
  // A quoted literal block: unindented lines that all start with the same punctuation character.
  const quote = (lines[j] ?? '')[0] ?? '';
  if (/[!-/:-@[-`{-~]/.test(quote)) {
    let end = j;
    while (end < lines.length && (lines[end] ?? '').startsWith(quote)) end += 1;
    push({ kind: 'literal', text: lines.slice(j, end).join('\n') });
    return end;
  }
  return j;
}
