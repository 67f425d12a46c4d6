import { XMLParser } from 'fast-xml-parser';
import type { ParseLimits } from '../context.js';
import { ParseError } from '../errors.js';
import { nestingError } from './xmlNesting.js';

/** An XML element with its qualified name, local name, decoded attributes and ordered children. */
export interface XmlElement {
  name: string;
  /** The name without its namespace prefix (`w:p` → `p`). */
  local: string;
  attrs: Readonly<Record<string, string>>;
  children: XmlNode[];
}

/** Text nodes are plain strings with entities already decoded. */
export type XmlNode = XmlElement | string;

/**
 * Parses one OOXML part into an ordered element tree (fast-xml-parser with `preserveOrder`).
 * DTDs are refused outright (OOXML never has one, and they are how entity bombs get in); nesting
 * deeper than `limits.maxNestingDepth` is `too_complex`; anything unparseable — including elements
 * left unclosed or closed out of order, which the parser would repair — is `corrupt_document`.
 */
export function parseXml(
  xml: string,
  part: string,
  limits: Pick<ParseLimits, 'maxNestingDepth'>,
): XmlElement {
  if (/<!DOCTYPE/i.test(xml.slice(0, 4096)) || xml.includes('<!ENTITY')) {
    throw new ParseError('corrupt_document', `${part} declares a DTD, which OOXML parts never do`);
  }
  const parser = new XMLParser({
    preserveOrder: true,
    ignoreAttributes: false,
    attributeNamePrefix: '',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: false,
    // Entities are decoded here, once, so that `&amp;#65;` stays the text "&#65;".
    processEntities: false,
    ignoreDeclaration: true,
    ignorePiTags: true,
    maxNestedTags: limits.maxNestingDepth,
  });
  let raw: unknown;
  try {
    raw = parser.parse(xml);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/nested tags/i.test(message)) {
      throw new ParseError('too_complex', `${part} nests elements deeper than ${limits.maxNestingDepth}`, {
        cause: error,
      });
    }
    throw new ParseError('corrupt_document', `${part} is not well-formed XML: ${message}`, { cause: error });
  }
  // Checked after the parser, so that a part nested too deep is reported as such.
  const broken = nestingError(xml);
  if (broken) throw new ParseError('corrupt_document', `${part} is not well-formed XML: ${broken}`);
  const root = Array.isArray(raw) ? convertNodes(raw).find(isElement) : undefined;
  if (!root) throw new ParseError('corrupt_document', `${part} has no root element`);
  return root;
}

/** Decodes XML bytes: UTF-8 normally, UTF-16 when a byte-order mark says so. */
export function decodeXml(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes);
}

export function isElement(node: XmlNode | undefined): node is XmlElement {
  return typeof node === 'object';
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

/** Child elements, optionally only those with a given local name. */
export function childElements(element: XmlElement, local?: string): XmlElement[] {
  const result: XmlElement[] = [];
  for (const child of element.children) {
    if (isElement(child) && (local === undefined || child.local === local)) result.push(child);
  }
  return result;
}

export function firstChild(element: XmlElement | undefined, local: string): XmlElement | undefined {
  if (!element) return undefined;
  for (const child of element.children) {
    if (isElement(child) && child.local === local) return child;
  }
  return undefined;
}

/** Follows a path of local names through first children (`path(sp, 'nvSpPr', 'nvPr', 'ph')`). */
export function path(element: XmlElement | undefined, ...locals: string[]): XmlElement | undefined {
  let current = element;
  for (const local of locals) current = firstChild(current, local);
  return current;
}

/**
 * An attribute by qualified name (`w:val`, `r:id`). Documents written with other prefixes for the
 * same namespaces still match on the local name, as long as prefixed-ness agrees (`id` ≠ `r:id`).
 */
export function attr(element: XmlElement | undefined, name: string): string | undefined {
  if (!element) return undefined;
  const exact = element.attrs[name];
  if (exact !== undefined) return exact;
  const wantsPrefix = name.includes(':');
  const local = localName(name);
  for (const [key, value] of Object.entries(element.attrs)) {
    if (key.includes(':') === wantsPrefix && localName(key) === local && !key.startsWith('xmlns'))
      return value;
  }
  return undefined;
}

/** All descendants with a given local name, in document order (iterative: depth is already bounded). */
export function descendants(element: XmlElement, local: string): XmlElement[] {
  const found: XmlElement[] = [];
  const stack: XmlElement[] = [element];
  while (stack.length > 0) {
    const current = stack.pop();
    if (!current) break;
    for (let i = current.children.length - 1; i >= 0; i -= 1) {
      const child = current.children[i];
      if (isElement(child)) stack.push(child);
    }
    if (current !== element && current.local === local) found.push(current);
  }
  return found;
}

/**
 * Descendants with one of the wanted local names, without looking inside a match or inside an
 * element named in `stopAt` (so a picture inside a text box is found once, by the text box).
 */
export function topmost(
  element: XmlElement,
  wanted: ReadonlySet<string>,
  stopAt: ReadonlySet<string>,
): XmlElement[] {
  const found: XmlElement[] = [];
  const stack: XmlElement[] = [];
  for (let i = element.children.length - 1; i >= 0; i -= 1) {
    const child = element.children[i];
    if (isElement(child)) stack.push(child);
  }
  while (stack.length > 0) {
    const current = stack.pop();
    if (!current) break;
    if (wanted.has(current.local)) {
      found.push(current);
      continue;
    }
    if (stopAt.has(current.local)) continue;
    for (let i = current.children.length - 1; i >= 0; i -= 1) {
      const child = current.children[i];
      if (isElement(child)) stack.push(child);
    }
  }
  return found;
}

/** The element's own text children. */
export function ownText(element: XmlElement): string {
  let text = '';
  for (const child of element.children) if (typeof child === 'string') text += child;
  return text;
}

function convertNodes(raw: unknown[]): XmlNode[] {
  const nodes: XmlNode[] = [];
  for (let i = 0; i < raw.length; i += 1) {
    const item = raw[i];
    // Let go of each converted subtree of the parser's own tree, so the two trees are never both
    // whole in memory (for a large part they are several times its size each).
    raw[i] = null;
    if (typeof item !== 'object' || item === null) continue;
    const record = item as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (key === ':@') continue;
      const value = record[key];
      if (key === '#text') {
        if (value !== undefined && value !== null) nodes.push(decodeEntities(String(value)));
      } else if (Array.isArray(value)) {
        nodes.push({
          name: key,
          local: localName(key),
          attrs: convertAttrs(record[':@']),
          children: convertNodes(value),
        });
      }
    }
  }
  return nodes;
}

function convertAttrs(raw: unknown): Record<string, string> {
  const attrs: Record<string, string> = {};
  if (typeof raw !== 'object' || raw === null) return attrs;
  for (const [key, value] of Object.entries(raw)) {
    attrs[key] = decodeEntities(typeof value === 'string' ? value : String(value));
  }
  return attrs;
}

const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decodes the five XML entities and numeric character references in one pass. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code =
        body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body] ?? whole;
  });
}
