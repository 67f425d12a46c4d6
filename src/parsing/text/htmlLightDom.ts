import { Parser } from 'htmlparser2';
import {
  CDATA_SECTION_NODE,
  ELEMENT_NODE,
  TEXT_NODE,
  withDocumentShell,
  type DomDocument,
  type DomElement,
  type DomNode,
} from './htmlDom.js';

const COMMENT_NODE = 8;
const DOCUMENT_NODE = 9;

interface LightText extends DomNode {
  readonly nodeType: typeof TEXT_NODE | typeof CDATA_SECTION_NODE | typeof COMMENT_NODE;
  readonly textContent: string;
  parentNode: LightParent | null;
  nextSibling: LightChild | null;
  previousSibling: LightChild | null;
  readonly firstChild: null;
}

interface LightElement extends DomElement {
  readonly nodeType: typeof ELEMENT_NODE;
  readonly attributes: Record<string, string>;
  /** `getAttribute('class')`, worked out on first use (attributes never change). */
  classValue: string | undefined;
  readonly children: LightElement[];
  parentNode: LightParent | null;
  nextSibling: LightChild | null;
  previousSibling: LightChild | null;
  firstChild: LightChild | null;
  lastChild: LightChild | null;
}

interface LightDocument extends DomDocument {
  readonly nodeType: typeof DOCUMENT_NODE;
  readonly parentNode: null;
  readonly nextSibling: null;
  readonly documentElement: LightElement | null;
  readonly head: LightElement | null;
  readonly body: LightElement | null;
  firstChild: LightChild | null;
  lastChild: LightChild | null;
}

type LightChild = LightText | LightElement;
type LightParent = LightElement | LightDocument;

/**
 * The same tree linkedom builds (see `parseHtmlDocument`), built straight from htmlparser2's events
 * into plain linked nodes, for pages Readability does not read: linkedom spends ~7× longer per page
 * (an event-target registry entry and an attribute node per element, attribute lookups by walking
 * a token list). It mirrors linkedom where the reader can tell: the same parser and options, one
 * text node per text event (entities split them), comments kept as nodes, attribute names as
 * written, `getAttribute('class')` as linkedom's class list reads it, and `head`/`body` implied the
 * way linkedom's getters imply them. It is read-only but for `remove()`.
 */
export function parseLightHtmlDocument(html: string): DomDocument {
  const document = createDocument();
  let parent: LightParent = document;
  let inCdata = false;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const element = createElement(name, attributes);
        append(parent, element);
        parent = element;
      },
      onclosetag() {
        parent = parent.parentNode ?? document;
      },
      ontext(text) {
        append(parent, createText(inCdata ? CDATA_SECTION_NODE : TEXT_NODE, text));
      },
      oncomment(text) {
        append(parent, createText(COMMENT_NODE, text));
      },
      oncdatastart() {
        inCdata = true;
      },
      oncdataend() {
        inCdata = false;
      },
    },
    { lowerCaseAttributeNames: false, decodeEntities: true, xmlMode: false },
  );
  parser.write(withDocumentShell(html));
  parser.end();
  return document;
}

const elementPrototype: ThisType<LightElement> &
  Pick<
    DomElement,
    'textContent' | 'children' | 'getAttribute' | 'hasAttribute' | 'hasAttributes' | 'remove'
  > = {
  /** Text and CDATA in document order, comments left out, as linkedom reads it. */
  get textContent(): string {
    let text = '';
    let node: LightChild | null = this.firstChild;
    while (node) {
      if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE) text += node.textContent;
      node = nextInside(node, this);
    }
    return text;
  },
  get children(): LightElement[] {
    const found: LightElement[] = [];
    for (let child = this.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === ELEMENT_NODE) found.push(child);
    }
    return found;
  },
  getAttribute(name: string): string | null {
    // linkedom answers `class` from its class list: tokens once each, single-spaced, '' when absent.
    if (name === 'class') return (this.classValue ??= classTokens(this.attributes).join(' '));
    return Object.hasOwn(this.attributes, name) ? (this.attributes[name] ?? null) : null;
  },
  hasAttribute(name: string): boolean {
    return Object.hasOwn(this.attributes, name);
  },
  hasAttributes(): boolean {
    for (const name in this.attributes) if (Object.hasOwn(this.attributes, name)) return true;
    return false;
  },
  remove(): void {
    const parent = this.parentNode;
    if (!parent) return;
    if (this.previousSibling) this.previousSibling.nextSibling = this.nextSibling;
    else parent.firstChild = this.nextSibling;
    if (this.nextSibling) this.nextSibling.previousSibling = this.previousSibling;
    else parent.lastChild = this.previousSibling;
    this.parentNode = null;
    this.nextSibling = null;
    this.previousSibling = null;
  },
};

function createElement(localName: string, attributes: Record<string, string>): LightElement {
  const element = Object.create(elementPrototype) as {
    -readonly [K in keyof LightElement]: LightElement[K];
  };
  element.nodeType = ELEMENT_NODE;
  element.localName = localName;
  element.attributes = attributes;
  element.classValue = undefined;
  element.parentNode = null;
  element.firstChild = null;
  element.lastChild = null;
  element.nextSibling = null;
  element.previousSibling = null;
  return element;
}

function createText(nodeType: LightText['nodeType'], textContent: string): LightText {
  return {
    nodeType,
    textContent,
    parentNode: null,
    firstChild: null,
    nextSibling: null,
    previousSibling: null,
  };
}

function createDocument(): LightDocument {
  return {
    nodeType: DOCUMENT_NODE,
    textContent: null,
    parentNode: null,
    nextSibling: null,
    firstChild: null,
    lastChild: null,
    get documentElement(): LightElement | null {
      return firstElementChild(this);
    },
    // linkedom implies a missing <head> as the root's first child and a missing <body> right after
    // it, even when a misplaced body exists elsewhere; the reader's output follows from that.
    get head(): LightElement | null {
      const root = firstElementChild(this);
      if (!root) return null;
      let head = firstElementChild(root);
      if (!head || head.localName !== 'head') {
        head = createElement('head', {});
        insertBefore(root, head, root.firstChild);
      }
      return head;
    },
    get body(): LightElement | null {
      const head = this.head;
      if (!head?.parentNode) return null;
      let body = nextElementSibling(head);
      if (!body || body.localName !== 'body') {
        body = createElement('body', {});
        insertBefore(head.parentNode, body, head.nextSibling);
      }
      return body;
    },
  };
}

function append(parent: LightParent, child: LightChild): void {
  insertBefore(parent, child, null);
}

function insertBefore(parent: LightParent, child: LightChild, before: LightChild | null): void {
  child.parentNode = parent;
  child.nextSibling = before;
  child.previousSibling = before ? before.previousSibling : parent.lastChild;
  if (child.previousSibling) child.previousSibling.nextSibling = child;
  else parent.firstChild = child;
  if (before) before.previousSibling = child;
  else parent.lastChild = child;
}

/** The node after `node` in document order without leaving `root`. */
function nextInside(node: LightChild, root: LightParent): LightChild | null {
  if (node.firstChild) return node.firstChild;
  for (let at: LightChild | LightParent | null = node; at && at !== root; at = at.parentNode) {
    if (at.nextSibling) return at.nextSibling;
  }
  return null;
}

function firstElementChild(parent: LightParent): LightElement | null {
  let child = parent.firstChild;
  while (child && child.nodeType !== ELEMENT_NODE) child = child.nextSibling;
  return child;
}

function nextElementSibling(element: LightElement): LightElement | null {
  let sibling = element.nextSibling;
  while (sibling && sibling.nodeType !== ELEMENT_NODE) sibling = sibling.nextSibling;
  return sibling;
}

function classTokens(attributes: Record<string, string>): string[] {
  if (!Object.hasOwn(attributes, 'class')) return [];
  return [...new Set((attributes.class ?? '').split(/\s+/).filter((token) => token !== ''))];
}
