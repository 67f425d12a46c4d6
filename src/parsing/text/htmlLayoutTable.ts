import { findElement, isElement, tagOf, toArray, type DomElement, type DomNode } from './htmlDom.js';

/** Class tokens of admonition boxes (DocBook, Sphinx, AsciiDoc, Markdown flavours). */
const ADMONITION =
  /^(note|tip|warning|caution|important|admonition|attention|danger|hint|callout|sidebar|notice)$/i;
/** Elements that make a table a page frame when it holds them: its cells are content, not data. */
const FRAME_CONTENT = new Set(['table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'pre']);

/**
 * Whether a `<table>` lays a page out rather than holding data: such a table is read as ordinary
 * content (its text kept, no table emitted). Layout tables are
 * - frames holding headings, lists, preformatted text or other tables;
 * - declared so (`role="presentation"`/`"none"`);
 * - admonition boxes: the table or an ancestor has a note/tip/warning… class, or a DocBook-style
 *   `summary` naming one;
 * - a single row or a single column (a navigation bar, a boxed paragraph, a frame around content);
 * - a row of an icon beside text: some cell holds only an image and the table has at most two rows.
 */
export function isLayoutTable(table: DomElement): boolean {
  const role = table.getAttribute('role');
  if (role === 'presentation' || role === 'none') return true;
  if (ADMONITION.test((table.getAttribute('summary') ?? '').trim())) return true;
  if (hasAdmonitionAncestor(table)) return true;
  if (contains(table, FRAME_CONTENT)) return true;
  const rows = rowsOf(table);
  if (rows.length <= 1) return true;
  const cells = rows.map((row) => toArray(row.children).filter((cell) => ['td', 'th'].includes(tagOf(cell))));
  const widest = Math.max(0, ...cells.map((row) => row.reduce((sum, cell) => sum + span(cell), 0)));
  if (widest <= 1) return true;
  return rows.length <= 2 && cells.flat().some(isImageOnly);
}

function hasAdmonitionAncestor(table: DomElement): boolean {
  for (let node: DomElement | null = table; node;) {
    const classes = (node.getAttribute('class') ?? '').split(/\s+/);
    if (classes.some((token) => ADMONITION.test(token))) return true;
    const parent: DomNode | null = node.parentNode;
    node = parent && isElement(parent) ? parent : null;
  }
  return false;
}

function contains(element: DomElement, tags: ReadonlySet<string>): boolean {
  for (let child = element.firstChild; child; child = child.nextSibling) {
    if (isElement(child) && (tags.has(tagOf(child)) || contains(child, tags))) return true;
  }
  return false;
}

/** The table's own rows (through thead/tbody/tfoot), not those of nested tables. */
function rowsOf(table: DomElement): DomElement[] {
  return toArray(table.children).flatMap((child) => {
    const tag = tagOf(child);
    if (tag === 'tr') return [child];
    if (tag === 'thead' || tag === 'tbody' || tag === 'tfoot') {
      return toArray(child.children).filter((row) => tagOf(row) === 'tr');
    }
    return [];
  });
}

function span(cell: DomElement): number {
  const value = Number.parseInt(cell.getAttribute('colspan') ?? '1', 10);
  return Number.isFinite(value) && value > 1 ? Math.min(value, 1000) : 1;
}

/** A cell showing an image and no text (an admonition icon, a logo). */
function isImageOnly(cell: DomElement): boolean {
  return (
    (cell.textContent ?? '').trim() === '' &&
    findElement(cell, (element) => tagOf(element) === 'img') !== null
  );
}
