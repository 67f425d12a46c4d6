import { parseHTML } from 'linkedom';

/**
 * The slice of the DOM the HTML reader uses. linkedom's own typings lean on the browser's DOM
 * library (not loaded in this Node project), so the reader codes against this structural view and
 * the cast happens once, here.
 */
export interface DomNode {
  readonly nodeType: number;
  readonly textContent: string | null;
  readonly childNodes: ArrayLike<DomNode>;
  readonly parentNode: DomNode | null;
  readonly firstChild: DomNode | null;
  readonly nextSibling: DomNode | null;
}

export interface DomElement extends DomNode {
  textContent: string | null;
  readonly localName: string;
  readonly children: ArrayLike<DomElement>;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  hasAttribute(name: string): boolean;
  hasAttributes(): boolean;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  remove(): void;
  appendChild(node: DomNode): DomNode;
}

export interface DomDocument {
  readonly documentElement: DomElement | null;
  readonly head: DomElement | null;
  readonly body: DomElement | null;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  createElement(name: string): DomElement;
}

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;
export const CDATA_SECTION_NODE = 4;

export function parseHtmlDocument(html: string): DomDocument {
  const window: unknown = parseHTML(withDocumentShell(html));
  return (window as { document: DomDocument }).document;
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

/** Child nodes without building an array (linkedom's `childNodes` walks the list to build one). */
export function* childrenOf(node: DomNode): Generator<DomNode> {
  for (let child = node.firstChild; child; child = child.nextSibling) yield child;
}

export function toArray<T>(list: ArrayLike<T>): T[] {
  return Array.from(list);
}
