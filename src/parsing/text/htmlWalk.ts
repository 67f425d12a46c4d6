import type { DocumentBuilder, FoundImage } from './documentBuilder.js';
import {
  CDATA_SECTION_NODE,
  findElements,
  isElement,
  tagOf,
  TEXT_NODE,
  toArray,
  type DomElement,
  type DomNode,
} from './htmlDom.js';
import { isLayoutTable } from './htmlLayoutTable.js';
import { readHtmlTable } from './htmlTable.js';
import type { ManualHeadings } from './htmlManualHeadings.js';
import { imageFromSource } from './images.js';
import { tidyLines, wordSet } from './input.js';

const SKIPPED = wordSet(`
  script style noscript template head title meta link svg math canvas iframe object embed button
  input select textarea option dialog map area
`);
const HEADING = /^h([1-6])$/;
/** Elements that break the flow of inline text; their content is walked as blocks. */
const BLOCK_CONTAINERS = wordSet(`
  div section article main header footer nav aside blockquote figure figcaption address details
  summary dl dt dd fieldset legend form center hgroup body html li caption td th tr tbody thead
  tfoot search menu
`);
/** Attribute the HTML reader sets on headings before Readability renames h1 to h2. */
export const HEADING_LEVEL_ATTRIBUTE = 'data-archivist-level';

/**
 * Walks a DOM subtree in document order and emits blocks: h1–h6 headings, paragraphs (inline
 * text gathered across inline elements, `<br>` kept as a line break), ul/ol lists with nested
 * items flattened by indentation, tables, images (alt text; `data:` URIs decoded) and `<pre>` as
 * preformatted text. Recursion depth is bounded by the depth check done before parsing. On a page a
 * documentation generator made, `manual` says which headings title no section and which bold
 * paragraphs do.
 */
export function walkHtml(root: DomElement, builder: DocumentBuilder, manual?: ManualHeadings): void {
  let inline: string[] = [];
  let pendingImages: FoundImage[] = [];

  const flush = (): void => {
    // Most flushes meet only the whitespace between two blocks, which makes no paragraph.
    if (inline.some((part) => part !== ' ' && part !== '\n' && part !== '')) {
      builder.paragraph(tidyLines(inline.join('').split('\n')));
    }
    inline = [];
    for (const image of pendingImages) builder.image(image);
    pendingImages = [];
  };

  const visit = (node: DomNode): void => {
    if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE) {
      inline.push(collapse(node.textContent ?? ''));
      return;
    }
    if (!isElement(node)) return;
    const tag = tagOf(node);
    if (SKIPPED.has(tag)) return;
    if (tag === 'br') {
      inline.push('\n');
      return;
    }
    if (tag === 'img') {
      pendingImages.push(imageOf(node));
      return;
    }
    const heading = HEADING.exec(tag);
    if (heading) {
      flush();
      const original = Number(node.getAttribute(HEADING_LEVEL_ATTRIBUTE));
      // A heading that is only a logo (READMEs: <h1 align="center"><img alt="Chalk"></h1>) is
      // titled by the image's alternative text.
      const text = textOf(node).replace(/\n/g, ' ') || altTextOf(node).replace(/\s+logo$/i, '');
      const tagLevel = original >= 1 && original <= 6 ? original : Number(heading[1]);
      const level = manual ? manual.headingLevel(node, text, tagLevel) : tagLevel;
      if (level === null) builder.paragraph(text);
      else builder.heading(text, level);
      return;
    }
    if (tag === 'p') {
      flush();
      // Only a paragraph opening with a digit can be a numbered section title: the others skip the check.
      const title = manual && /^\s*\d/.test(node.textContent ?? '') ? paragraphTitle(node, manual) : null;
      if (title) {
        builder.heading(title.text, title.level);
        return;
      }
      for (let child = node.firstChild; child; child = child.nextSibling) visit(child);
      flush();
      return;
    }
    if (tag === 'pre') {
      flush();
      builder.paragraph(node.textContent ?? '', true);
      return;
    }
    if (tag === 'ul' || tag === 'ol') {
      flush();
      emitList(node, builder);
      return;
    }
    if (tag === 'table') {
      flush();
      emitTable(node, builder, visit, flush);
      return;
    }
    if (BLOCK_CONTAINERS.has(tag)) {
      flush();
      for (let child = node.firstChild; child; child = child.nextSibling) visit(child);
      flush();
      return;
    }
    for (let child = node.firstChild; child; child = child.nextSibling) visit(child);
  };

  visit(root);
  flush();
}

/** A paragraph that the generator's markup makes a section title, with its level. */
function paragraphTitle(
  paragraph: DomElement,
  manual: ManualHeadings,
): { text: string; level: number } | null {
  const text = textOf(paragraph);
  const level = manual.paragraphHeadingLevel(paragraph, text);
  return level === null ? null : { text, level };
}

function emitTable(
  table: DomElement,
  builder: DocumentBuilder,
  visit: (node: DomNode) => void,
  flush: () => void,
): void {
  // A table that lays the page out (a frame, a navigation bar, an admonition box) is read as
  // ordinary content: its text stays, but it is not a data table.
  if (isLayoutTable(table)) {
    for (let child = table.firstChild; child; child = child.nextSibling) visit(child);
    flush();
    return;
  }
  const images: FoundImage[] = [];
  const { cells, hasHeader, caption } = readHtmlTable(table, (cell) => textOf(cell, false, images));
  builder.table(cells, hasHeader, caption);
  for (const image of images) builder.image(image);
}

/**
 * A list and everything nested in it as one flat list; nesting shows as two spaces per level. A data
 * table inside an item (Texinfo puts examples there) ends the list there: the item's text, then the
 * table, then the rest of the list as a new list.
 */
function emitList(list: DomElement, builder: DocumentBuilder): void {
  let items: string[] = [];
  const images: FoundImage[] = [];
  const ordered = tagOf(list) === 'ol';
  const collect = (element: DomElement, depth: number): void => {
    for (const child of toArray(element.children)) {
      const tag = tagOf(child);
      if (tag === 'li') {
        const tables = dataTablesIn(child);
        const text = textOf(child, true, images, tables.length > 0);
        if (text) items.push('  '.repeat(depth) + text.replace(/\n/g, ' '));
        if (tables.length > 0) {
          builder.list(items, ordered);
          items = [];
          for (const table of tables) {
            const { cells, hasHeader, caption } = readHtmlTable(table, (cell) => textOf(cell, false, images));
            builder.table(cells, hasHeader, caption);
          }
        }
        for (const nested of nestedLists(child)) collect(nested, depth + 1);
      } else if (tag === 'ul' || tag === 'ol') {
        collect(child, depth + 1);
      } else if (!SKIPPED.has(tag)) {
        collect(child, depth);
      }
    }
  };
  collect(list, 0);
  builder.list(items, ordered);
  for (const image of images) builder.image(image);
}

/** Data tables inside a list item, outside its nested lists and outside other tables. */
function dataTablesIn(item: DomElement): DomElement[] {
  const found: DomElement[] = [];
  const search = (element: DomElement): void => {
    for (const child of toArray(element.children)) {
      const tag = tagOf(child);
      if (tag === 'table') {
        if (!isLayoutTable(child)) found.push(child);
      } else if (tag !== 'ul' && tag !== 'ol' && !SKIPPED.has(tag)) search(child);
    }
  };
  search(item);
  return found;
}

/** Lists inside a list item (however deeply wrapped), but not lists inside those lists. */
function nestedLists(item: DomElement): DomElement[] {
  const found: DomElement[] = [];
  const search = (element: DomElement): void => {
    for (const child of toArray(element.children)) {
      const tag = tagOf(child);
      if (tag === 'ul' || tag === 'ol') found.push(child);
      else if (!SKIPPED.has(tag)) search(child);
    }
  };
  search(item);
  return found;
}

/**
 * The visible text of an element: whitespace collapsed as a browser would, `<br>` and block
 * boundaries as line breaks, skipped elements ignored; with `skipLists`, nested lists are left out
 * (a list item's own text), and with `skipTables` its data tables. Images met on the way go to
 * `images` when given.
 */
export function textOf(
  element: DomElement,
  skipLists = false,
  images?: FoundImage[],
  skipTables = false,
): string {
  const parts: string[] = [];
  const visit = (node: DomNode): void => {
    if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE) {
      parts.push(collapse(node.textContent ?? ''));
      return;
    }
    if (!isElement(node)) return;
    const tag = tagOf(node);
    if (SKIPPED.has(tag) || (skipLists && (tag === 'ul' || tag === 'ol'))) return;
    if (skipTables && tag === 'table' && !isLayoutTable(node)) return;
    if (tag === 'br') {
      parts.push('\n');
      return;
    }
    if (tag === 'img') {
      images?.push(imageOf(node));
      return;
    }
    const block = tag === 'p' || HEADING.test(tag) || BLOCK_CONTAINERS.has(tag) || tag === 'table';
    if (block) parts.push('\n');
    for (let child = node.firstChild; child; child = child.nextSibling) visit(child);
    if (block) parts.push('\n');
    else if (tag === 'td' || tag === 'th') parts.push(' ');
  };
  for (let child = element.firstChild; child; child = child.nextSibling) visit(child);
  return tidyLines(parts.join('').split('\n'));
}

/** The alternative text of the images inside an element, joined. */
function altTextOf(element: DomElement): string {
  return findElements(element, (candidate) => tagOf(candidate) === 'img')
    .map((image) => (image.getAttribute('alt') ?? '').trim())
    .filter((alt) => alt !== '')
    .join(' ');
}

function imageOf(element: DomElement): FoundImage {
  const dimension = (name: string): number | null => {
    const value = Number.parseInt(element.getAttribute(name) ?? '', 10);
    return Number.isFinite(value) && value > 0 ? value : null;
  };
  return imageFromSource(
    element.getAttribute('src'),
    element.getAttribute('alt') ?? element.getAttribute('title'),
    {
      width: dimension('width'),
      height: dimension('height'),
    },
  );
}

function collapse(text: string): string {
  return text.replace(/[ \t\n\r\f]+/g, ' ');
}
