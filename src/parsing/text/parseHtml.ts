import { Readability } from '@mozilla/readability';
import type { ParseContext } from '../context.js';
import { extensionOf } from '../detect/detectFormat.js';
import { levelsFromSectionNumbers } from '../headingNumbers.js';
import { ParseError } from '../errors.js';
import type { ParsedDocument } from '../model.js';
import { createDocumentBuilder } from './documentBuilder.js';
import { removeBoilerplate } from './htmlBoilerplate.js';
import { assertHtmlDepth } from './htmlDepth.js';
import { parseHtmlDocument, toArray, type DomDocument, type DomElement } from './htmlDom.js';
import { readHtmlMetadata } from './htmlMetadata.js';
import { HEADING_LEVEL_ATTRIBUTE, textOf, walkHtml } from './htmlWalk.js';
import { readTextInput } from './input.js';
import { closeXhtmlEmptyElements } from './xhtml.js';

/** Above this many elements (after boilerplate removal) Readability is skipped; see below. */
const READABILITY_MAX_ELEMENTS = 20_000;

/**
 * HTML: the main content without boilerplate. The nesting depth is checked on the raw string
 * before any DOM exists; linkedom builds the DOM; scripts, hidden elements, navigation, page
 * header and footer, asides, cookie banners and ads go; Readability picks the article (falling
 * back to `<main>`, `<article>` or `<body>` when it finds nothing, or when the page is too large
 * for it to finish quickly); the walk turns what is left into blocks.
 */
export async function parseHtml(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const html = closeXhtmlEmptyElements(decodeHtml(bytes, ctx));
  assertHtmlDepth(html, ctx.limits.maxNestingDepth, ctx.fileName);
  const builder = createDocumentBuilder(ctx, extensionOf(ctx.fileName) === '.htm' ? '.htm' : '.html');
  await builder.checkpoint();

  const document = parseOrThrow(html, ctx);
  const metadata = readHtmlMetadata(document);
  const manual = isGeneratedManual(document);
  removeBoilerplate(document);
  const pageHeading = findPageHeading(document);
  // Readability costs ~25 µs per element (2.3 s for a 5 MB page); above the size of any real
  // article page the author's own <main>/<article> markup picks the content instead. Pages of a
  // documentation generator skip it too: their chrome is known by class (removed above), and
  // Readability's link-density rule drops their short sections ("5.5. What is missing…", a man
  // page's SEE ALSO) with their titles; on Publican's pages (the Debian Handbook) it also dropped
  // whole subsections, sidebars and figures, and split paragraphs at every <acronym>.
  const readable = !manual && document.querySelectorAll('*').length <= READABILITY_MAX_ELEMENTS;
  let root = readable ? findArticle(document) : null;
  let mainContent = 'readability';
  // Readability drops article headers ("post-header" looks like chrome to it), and with them the
  // page's h1: put that heading back in front when the article lost it.
  if (root && pageHeading && !hasHeading(root, pageHeading)) builder.heading(pageHeading, 1);
  if (!root) {
    // Readability may have changed the DOM before giving up: start again from the markup.
    const fresh = readable ? parseOrThrow(html, ctx) : document;
    if (readable) removeBoilerplate(fresh);
    const main = fresh.querySelector('main') ?? fresh.querySelector('[role="main"]');
    const article = fresh.querySelector('article');
    root = main ?? article ?? fresh.body ?? fresh.documentElement;
    mainContent = main ? 'main' : article ? 'article' : 'body';
  }
  await builder.checkpoint();
  if (root) walkHtml(root, builder);
  const parsed = builder.finish({ ...metadata, extra: { ...metadata.extra, mainContent } });
  levelsFromSectionNumbers(parsed.blocks);
  return parsed;
}

/** Generators of documentation whose pages are read without Readability (see parseHtml). */
const MANUAL_GENERATOR = /docbook|docutils|sphinx|makeinfo|texi2any|texi2html|asciidoc|publican/i;

function isGeneratedManual(document: DomDocument): boolean {
  return toArray(document.querySelectorAll('meta')).some(
    (meta) =>
      (meta.getAttribute('name') ?? '').toLowerCase() === 'generator' &&
      MANUAL_GENERATOR.test(meta.getAttribute('content') ?? ''),
  );
}

/**
 * Readability's article root, or null when it finds no text. Readability renames h1 to h2 and
 * drops the heading that repeats the page title; the original levels are kept in an attribute,
 * and the title it compares against is replaced by one that matches nothing (the metadata has
 * already been read), so the document keeps its own top heading.
 */
function findArticle(document: DomDocument): DomElement | null {
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
    const article = new Readability<DomElement>(document as never, {
      serializer: (node: unknown) => node as DomElement,
      disableJSONLD: true,
    }).parse();
    const root = article?.content ?? null;
    return root && (root.textContent ?? '').trim() !== '' ? root : null;
  } catch {
    return null; // Readability gave up on odd markup: the fallback reads the page without it
  }
}

/** The h1 that titles the page: the first one inside main/article, else the only one. */
function findPageHeading(document: DomDocument): string | null {
  const scoped = document.querySelector('main h1, article h1, [role="main"] h1');
  const all = toArray(document.querySelectorAll('h1'));
  const heading = scoped ?? (all.length === 1 ? all[0] : null);
  const text = heading ? textOf(heading).replace(/\n/g, ' ') : '';
  return text || null;
}

function hasHeading(root: DomElement, text: string): boolean {
  return toArray(root.querySelectorAll('h1, h2, h3, h4, h5, h6')).some(
    (heading) => textOf(heading).replace(/\n/g, ' ') === text,
  );
}

function parseOrThrow(html: string, ctx: ParseContext): DomDocument {
  try {
    return parseHtmlDocument(html);
  } catch (error) {
    throw new ParseError('corrupt_document', `${ctx.fileName}: the HTML could not be parsed`, {
      cause: error,
    });
  }
}

/** UTF-8/UTF-16 as detected; a legacy page's declared `<meta charset>` beats our guess. */
function decodeHtml(bytes: Uint8Array, ctx: ParseContext): string {
  const decoded = readTextInput(bytes, ctx);
  if (decoded.encoding.startsWith('utf-')) return decoded.text;
  const declared = /<meta[^>]+charset\s*=\s*["']?([\w:.-]+)/i.exec(decoded.text.slice(0, 4096))?.[1];
  if (!declared) return decoded.text;
  try {
    return new TextDecoder(declared).decode(bytes).replace(/\0/g, '');
  } catch {
    return decoded.text; // a label TextDecoder does not know
  }
}
