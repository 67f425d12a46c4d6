import type { Block } from '../model.js';
import { tidyText } from './budget.js';
import { readOdfList } from './odfList.js';
import { pointsElsewhere } from './odfReferences.js';
import type { OdfItem, OdfTextEnv, OdfTextWalker } from './odfWalk.js';
import { readOdfTable } from './odfTable.js';
import { altTextOf } from './officeImages.js';
import { createTitleLines } from './officeTitle.js';
import { attr, childElements, firstChild, isElement, type XmlElement } from './xml.js';

/** Elements whose content is never document text: change tracking, comments, index bodies… */
const SKIPPED = new Set([
  'tracked-changes',
  'annotation',
  'annotation-end',
  'note-citation',
  'table-of-content',
  'illustration-index',
  'table-index',
  'object-index',
  'user-index',
  'alphabetical-index',
  'sequence-decls',
  'variable-decls',
  'user-field-decls',
  'forms',
  'bookmark',
  'bookmark-start',
  'bookmark-end',
]);
/** Drawing shapes that may carry paragraphs of text. */
const SHAPES = new Set([
  'custom-shape',
  'rect',
  'ellipse',
  'circle',
  'polygon',
  'polyline',
  'regular-polygon',
  'path',
  'caption',
  'measure',
  'connector',
  'line',
]);

/**
 * Walks ODF text content (ODT bodies, text boxes, cells, slides) into blocks: `text:h` headings at
 * their outline level (one made only of cross-references, an entry of a contents list typed as
 * headings, is a paragraph), paragraphs (Title and Subtitle styled ones as headings 1 and 2,
 * consecutive Title paragraphs as one heading), lists with nesting indented, tables (spans
 * expanded), frames — pictures with their alt text, text boxes and shapes walked as content after
 * the paragraph that anchors them — and notes: a footnote's or
 * endnote's citation stays in the text as `[label]` and its text follows as a paragraph starting with
 * the same `[label]` (footnotes right after the citing block, endnotes at the end of the document).
 * Pages advance at `fo:break-before="page"` styles and LibreOffice's `text:soft-page-break`.
 */
export function createOdfTextWalker(env: OdfTextEnv): OdfTextWalker {
  let anyContent = false;
  const endnotes: Block[] = [];
  const counters = { footnote: 0, endnote: 0 };
  const titleLines = createTitleLines();

  const walker: OdfTextWalker = {
    page: 1,
    children(container, out) {
      for (const child of childElements(container)) walker.element(child, out);
    },
    element(element, out) {
      switch (element.local) {
        case 'h':
        case 'p':
          paragraph(element, out);
          break;
        case 'list':
          list(element, out);
          break;
        case 'table':
          table(element, out);
          break;
        case 'soft-page-break':
          if (anyContent) walker.page += 1;
          break;
        case 'frame':
          frame(element, out);
          break;
        case 'g':
        case 'section':
        case 'index-body':
        case 'text-box':
          walker.children(element, out);
          break;
        default:
          if (SHAPES.has(element.local)) walker.children(element, out);
      }
    },
    paragraphText(element) {
      return tidyText(inline(element, { notes: null, side: null }));
    },
    endnotes: () => endnotes,
  };

  interface Collect {
    /** Notes cited in the paragraph; null where notes are not expected (cells of sheets). */
    notes: Block[] | null;
    /** Frames and shapes anchored in the paragraph. */
    side: OdfItem[] | null;
  }

  function inline(element: XmlElement, collect: Collect): string {
    let text = '';
    for (const child of element.children) {
      if (!isElement(child)) {
        text += child;
        continue;
      }
      switch (child.local) {
        case 's':
          text += ' ';
          break;
        case 'tab':
          text += '\t';
          break;
        case 'line-break':
          text += '\n';
          break;
        case 'soft-page-break':
          if (anyContent) walker.page += 1;
          break;
        case 'note':
          text += note(child, collect);
          break;
        case 'frame':
        case 'g':
          if (collect.side) walker.element(child, collect.side);
          break;
        default:
          if (SHAPES.has(child.local)) {
            if (collect.side) walker.children(child, collect.side);
          } else if (!SKIPPED.has(child.local)) text += inline(child, collect);
      }
    }
    return text;
  }

  /** The citation mark in the text; the note's own text goes to the footnotes or the endnotes. */
  function note(element: XmlElement, collect: Collect): string {
    const kind = attr(element, 'text:note-class') === 'endnote' ? 'endnote' : 'footnote';
    counters[kind] += 1;
    const citation = firstChild(element, 'note-citation');
    const label =
      (citation ? tidyText(inline(citation, { notes: null, side: null })) : '') || String(counters[kind]);
    const body = firstChild(element, 'note-body');
    const inner: OdfItem[] = [];
    if (body) walker.children(body, inner);
    const text = tidyText(inner.flatMap(itemText).join(' ')).replace(/\n/g, ' ');
    if (text && collect.notes) {
      env.budget.addText(text);
      const block: Block = { type: 'paragraph', text: `[${label}] ${text}`, page: walker.page };
      if (kind === 'endnote') endnotes.push(block);
      else collect.notes.push(block);
    }
    return `[${label}]`;
  }

  function paragraph(element: XmlElement, out: OdfItem[]): void {
    const style = env.styles.style(attr(element, 'text:style-name'));
    if (style.pageBreakBefore && anyContent) walker.page += 1;
    const page = walker.page;
    const notes: Block[] = [];
    const side: OdfItem[] = [];
    const text = tidyText(inline(element, { notes, side }));
    if (text) {
      env.budget.addText(text);
      anyContent = true;
      const outlined = element.local === 'h';
      const level = !outlined
        ? style.headingLevel
        : pointsElsewhere(element, SKIPPED)
          ? null
          : headingLevel(element, style.outlineLevel);
      if (level === null) out.push({ type: 'paragraph', text, page });
      else
        titleLines.push(
          out,
          { type: 'heading', text: text.replace(/\n/g, ' '), level, page },
          !outlined && style.title,
        );
    }
    for (const item of notes) out.push(item);
    for (const item of side) out.push(item);
  }

  function list(element: XmlElement, out: OdfItem[]): void {
    readOdfList(element, env, out, {
      walker,
      inline(p, after) {
        const notes: Block[] = [];
        const side: OdfItem[] = [];
        const text = inline(p, { notes, side });
        after.push(...notes, ...side);
        return text;
      },
      markContent: () => {
        anyContent = true;
      },
    });
  }

  function table(element: XmlElement, out: OdfItem[]): void {
    const style = env.styles.style(attr(element, 'table:style-name'));
    if (style.pageBreakBefore && anyContent) walker.page += 1;
    const page = walker.page;
    const deferred: OdfItem[] = [];
    const grid = readOdfTable(
      element,
      {
        budget: env.budget,
        limits: env.limits,
        cellText: (cell) => {
          const inner: OdfItem[] = [];
          walker.children(cell, inner);
          const lines: string[] = [];
          for (const item of inner) {
            if (item.type === 'table') for (const row of item.table.cells) lines.push(row.join(' | '));
            else if (item.type === 'image' || item.type === 'imageRef') deferred.push(item);
            else lines.push(...itemText(item).split('\n'));
          }
          return lines.filter((line) => line !== '').join('\n');
        },
      },
      'text',
    );
    if (grid.cells.length > 0) {
      anyContent = true;
      const hasHeader = grid.cells.length > 1 || grid.headerRows > 0;
      out.push({
        type: 'table',
        table: { index: 0, pageNumber: page, cells: grid.cells, hasHeader, caption: null },
        page,
      });
    }
    out.push(...deferred);
  }

  function frame(element: XmlElement, out: OdfItem[]): void {
    const alt = altTextOf(ownTextOf(firstChild(element, 'desc')), ownTextOf(firstChild(element, 'title')));
    for (const child of childElements(element)) {
      if (child.local === 'text-box' || child.local === 'table') {
        walker.element(child, out);
        return;
      }
      if (child.local === 'image') {
        const href = attr(child, 'xlink:href');
        if (href === undefined || /^[a-z][a-z0-9+.-]*:/i.test(href)) {
          env.warnings.push(`a linked picture on page ${walker.page} was skipped`);
        } else {
          anyContent = true;
          out.push({
            type: 'imageRef',
            ref: { part: href.replace(/^\.\//, ''), altText: alt, page: walker.page },
          });
        }
        return;
      }
      if (child.local === 'object' || child.local === 'object-ole') {
        env.warnings.push(`an embedded object (chart or formula) on page ${walker.page} was not extracted`);
        return;
      }
    }
  }

  return walker;
}

function headingLevel(h: XmlElement, styleLevel: number | null): number {
  const level = Number.parseInt(attr(h, 'text:outline-level') ?? '', 10);
  if (Number.isInteger(level) && level >= 1) return Math.min(level, 9);
  return styleLevel ?? 1;
}

function ownTextOf(element: XmlElement | undefined): string | undefined {
  if (!element) return undefined;
  return element.children.filter((c): c is string => typeof c === 'string').join('');
}

/** The text an item contributes where only text fits (a note, a table cell). */
function itemText(item: OdfItem): string {
  switch (item.type) {
    case 'heading':
    case 'paragraph':
      return item.text;
    case 'list':
      return item.items.map((i) => i.trim()).join('\n');
    case 'table':
      return item.table.cells.map((row) => row.join(' | ')).join('\n');
    default:
      return '';
  }
}
