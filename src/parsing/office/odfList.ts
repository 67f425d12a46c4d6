import { tidyText } from './budget.js';
import type { OdfItem, OdfTextEnv, OdfTextWalker } from './odfWalk.js';
import { attr, childElements, firstChild, isElement, type XmlElement } from './xml.js';

/** What a list needs from the text walk it is part of. */
export interface OdfListWalk {
  /** The walk's current page, and how a heading or table inside an item is read. */
  walker: OdfTextWalker;
  /** A paragraph's text; the notes it cites and the frames anchored in it are added to `after`. */
  inline(paragraph: XmlElement, after: OdfItem[]): string;
  /** The document has content now (page breaks count from here on). */
  markContent(): void;
}

/**
 * Reads `text:list` into list blocks: an item's paragraphs joined, nested lists indented two spaces a
 * level, ordered or not from the list style. Notes and frames of an item follow the list part it
 * ends; a heading or table inside an item ends the list there (the rest is a new list), since a
 * list block holds only text.
 */
export function readOdfList(element: XmlElement, env: OdfTextEnv, out: OdfItem[], walk: OdfListWalk): void {
  const { walker } = walk;
  let items: string[] = [];
  let page = walker.page;
  const firstParagraph = element.children.find(isElement);
  const styleName =
    attr(element, 'text:style-name') ??
    env.styles.style(attr(firstChild(firstParagraph, 'p'), 'text:style-name')).listStyle;
  const ordered = env.styles.ordered(styleName, 1);
  const flush = (): void => {
    if (items.length > 0) out.push({ type: 'list', items, ordered, page });
    items = [];
    page = walker.page;
  };
  const walkList = (container: XmlElement, depth: number): void => {
    for (const item of childElements(container)) {
      if (item.local !== 'list-item' && item.local !== 'list-header') continue;
      const parts: string[] = [];
      const after: OdfItem[] = [];
      const pushParts = (): void => {
        const text = tidyText(parts.join(' ')).replace(/\n/g, ' ');
        parts.length = 0;
        if (!text) return;
        env.budget.addText(text);
        walk.markContent();
        items.push('  '.repeat(depth) + text);
      };
      for (const child of childElements(item)) {
        if (child.local === 'p') {
          parts.push(walk.inline(child, after));
        } else if (child.local === 'list') {
          pushParts();
          walkList(child, depth + 1);
        } else {
          pushParts();
          flush();
          walker.element(child, out);
        }
      }
      pushParts();
      if (after.length > 0) {
        flush();
        out.push(...after);
      }
    }
  };
  walkList(element, 0);
  flush();
}
