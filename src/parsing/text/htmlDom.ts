import { parseHTML } from 'linkedom';

/**
 * The slice of the DOM the HTML reader uses. linkedom's own typings lean on the browser's DOM
 * library (not loaded in this Node project), so the reader codes against this structural view and
 * the cast happens once, here. Two DOMs implement it: linkedom's (`parseHtmlDocument`, which
 * Readability needs) and a lighter one (`parseLightHtmlDocument`) for everything else.
 */
export interface DomNode {
  readonly nodeType: number;
  readonly textContent: string | null;
  readonly parentNode: DomNode | null;
  readonly firstChild: DomNode | null;
  readonly nextSibling: DomNode | null;
}

export interface DomElement extends DomNode {
  readonly localName: string;
  readonly children: ArrayLike<DomElement>;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  hasAttributes(): boolean;
  remove(): void;
}

export interface DomDocument extends DomNode {
  readonly documentElement: DomElement | null;
  readonly head: DomElement | null;
  readonly body: DomElement | null;
}

/**
 * linkedom's elements and documents can also be changed and queried by selector, as Readability's
 * preparation (and the corpus scripts) need.
 */
export interface LinkedomElement extends DomElement {
  textContent: string | null;
  readonly children: ArrayLike<LinkedomElement>;
  setAttribute(name: string, value: string): void;
  appendChild(node: DomNode): DomNode;
  querySelector(selector: string): LinkedomElement | null;
  querySelectorAll(selector: string): ArrayLike<LinkedomElement>;
}

export interface LinkedomDocument extends DomDocument {
  readonly documentElement: LinkedomElement | null;
  readonly head: LinkedomElement | null;
  readonly body: LinkedomElement | null;
  createElement(name: string): LinkedomElement;
  querySelector(selector: string): LinkedomElement | null;
  querySelectorAll(selector: string): ArrayLike<LinkedomElement>;
}

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
export const CDATA_SECTION_NODE = 4;

export function parseHtmlDocument(html: string): LinkedomDocument {
  const window: unknown = parseHTML(withDocumentShell(html));
  return (window as { document: LinkedomDocument }).document;
}

/** Leading content that belongs in `<head>` when a page omits the html/head/body tags. */
const HEAD_ITEM =
  /\s*(?:<!doctype[^>]*>|<!--[\s\S]*?-->|<\/?(?:html|head)(?:\s[^>]*)?>|<(?:meta|link|base)\b[^>]*>|<title\b[^>]*>[\s\S]*?<\/title>|<style\b[^>]*>[\s\S]*?<\/style>|<script\b[^>]*>[\s\S]*?<\/script>)/iy;

/**
 * HTML lets a page omit `<html>`, `<head>` and `<body>`, but linkedom then makes the first element
 * the root and misplaces everything. Supply the missing tags the way a browser would imply them.
 */
export function withDocumentShell(html: string): string {
  const hasHtml = /<html[\s>]/i.test(html);
  const hasBody = /<body[\s>]/i.test(html);
  if (hasHtml && hasBody) return html;
  if (hasBody) return `<html>${html.replace(/^\s*<!doctype[^>]*>/i, '')}</html>`;
  let bodyStart = 0;
  HEAD_ITEM.lastIndex = 0;
  while (HEAD_ITEM.exec(html)) bodyStart = HEAD_ITEM.lastIndex;
  const head = html.slice(0, bodyStart).replace(/<!doctype[^>]*>|<\/?(?:html|head)(?:\s[^>]*)?>/gi, '');
  const body = html.slice(bodyStart).replace(/<\/(?:body|html)>\s*$/gi, '');
  return `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;
}

export function isElement(node: DomNode): node is DomElement {
  return node.nodeType === ELEMENT_NODE;
}

/** Lower-case tag name (linkedom upper-cases elements created by scripts such as Readability). */
export function tagOf(element: DomElement): string {
  return element.localName.toLowerCase();
}

export function toArray<T>(list: ArrayLike<T>): T[] {
  return Array.from(list);
}

/**
 * The elements under `root` (not `root` itself) that match, in document order: what
 * `querySelectorAll` gives, without linkedom compiling the selector anew on every call.
 */
export function findElements(root: DomNode, matches: (element: DomElement) => boolean): DomElement[] {
  const found: DomElement[] = [];
  for (let node = nextNode(root, root); node; node = nextNode(node, root)) {
    if (isElement(node) && matches(node)) found.push(node);
  }
  return found;
}

/** How many elements are under `root` (not `root` itself). */
export function countElements(root: DomNode): number {
  let count = 0;
  for (let node = nextNode(root, root); node; node = nextNode(node, root)) if (isElement(node)) count += 1;
  return count;
}

/** The first element under `root` that matches, in document order (`querySelector`). */
export function findElement(root: DomNode, matches: (element: DomElement) => boolean): DomElement | null {
  for (let node = nextNode(root, root); node; node = nextNode(node, root)) {
    if (isElement(node) && matches(node)) return node;
  }
  return null;
}

/**
 * The node after `node` in document order, staying inside `root`; with `intoChildren` false, the
 * node after its subtree.
 */
export function nextNode(node: DomNode, root: DomNode, intoChildren = true): DomNode | null {
  if (intoChildren && node.firstChild) return node.firstChild;
  for (let at: DomNode | null = node; at && at !== root; at = at.parentNode) {
    if (at.nextSibling) return at.nextSibling;
  }
  return null;
}
