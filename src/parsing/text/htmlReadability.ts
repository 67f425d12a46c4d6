import { Readability } from '@mozilla/readability';
import { toArray, type LinkedomDocument, type LinkedomElement } from './htmlDom.js';
import { HEADING_LEVEL_ATTRIBUTE, textOf } from './htmlWalk.js';

/**
 * Readability's article root, or null when it finds no text. Readability renames h1 to h2 and
 * drops the heading that repeats the page title; the original levels are kept in an attribute,
 * and the title it compares against is replaced by one that matches nothing (the metadata has
 * already been read), so the document keeps its own top heading. It changes the document.
 */
export function findArticle(document: LinkedomDocument): LinkedomElement | null {
  for (const heading of toArray(document.querySelectorAll('h1, h2, h3, h4, h5, h6'))) {
    heading.setAttribute(HEADING_LEVEL_ATTRIBUTE, heading.localName.slice(1));
  }
  for (const element of toArray(document.querySelectorAll('title, meta'))) element.remove();
  // DocBook's sidebar boxes ("VOCABULARY Cache", "ALTERNATIVE axi-cache") are part of the text, but
  // Readability discards anything classed "sidebar" as page chrome: keep them out of its sight.
  for (const box of toArray(document.querySelectorAll('div.sidebar'))) {
    if (box.querySelector('.titlepage, .title')) {
      box.setAttribute('class', (box.getAttribute('class') ?? '').replace(/\bsidebar\b/g, 'archivist-box'));
    }
  }
  const head = document.head;
  if (head) {
    const title = document.createElement('title');
    title.textContent = 'archivist-readability-placeholder-title';
    head.appendChild(title);
  }
  try {
    const article = new Readability<LinkedomElement>(document as never, {
      serializer: (node: unknown) => node as LinkedomElement,
      disableJSONLD: true,
    }).parse();
    const root = article?.content ?? null;
    return root && (root.textContent ?? '').trim() !== '' ? root : null;
  } catch {
    return null; // Readability gave up on odd markup: the fallback reads the page without it
  }
}

/** Whether `root` holds a heading (any level) reading `text`. */
export function hasHeading(root: LinkedomElement, text: string): boolean {
  return toArray(root.querySelectorAll('h1, h2, h3, h4, h5, h6')).some(
    (heading) => textOf(heading).replace(/\n/g, ' ') === text,
  );
}
