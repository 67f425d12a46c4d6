import { attr, isElement, type XmlElement } from './xml.js';

/** Elements whose text names another place of the document: a cross-reference or an internal link. */
const REFERENCES = new Set(['bookmark-ref', 'reference-ref', 'sequence-ref', 'note-ref']);

/**
 * A heading whose every visible character belongs to cross-references to other headings is an entry of
 * a contents list typed as headings (as some generators write a table of contents), not a section:
 * it points elsewhere, so it stays a paragraph. Elements in `ignored` (bookmarks, annotations) show
 * nothing and are passed over.
 */
export function pointsElsewhere(h: XmlElement, ignored: ReadonlySet<string>): boolean {
  let referenced = false;
  const visit = (element: XmlElement): boolean => {
    for (const child of element.children) {
      if (!isElement(child)) {
        if (/\S/.test(child)) return false;
      } else if (REFERENCES.has(child.local) || isInternalLink(child)) {
        referenced ||= /\S/.test(textContent(child));
      } else if (!ignored.has(child.local) && !visit(child)) return false;
    }
    return true;
  };
  return visit(h) && referenced;
}

function isInternalLink(element: XmlElement): boolean {
  return element.local === 'a' && (attr(element, 'xlink:href') ?? '').startsWith('#');
}

function textContent(element: XmlElement): string {
  return element.children.map((child) => (isElement(child) ? textContent(child) : child)).join('');
}
