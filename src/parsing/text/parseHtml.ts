import type { ParseContext } from '../context.js';
import { extensionOf } from '../detect/detectFormat.js';
import { levelsFromSectionNumbers } from '../headingNumbers.js';
import { ParseError } from '../errors.js';
import type { ParsedDocument } from '../model.js';
import { createDocumentBuilder } from './documentBuilder.js';
import { removeBoilerplate } from './htmlBoilerplate.js';
import { assertHtmlDepth } from './htmlDepth.js';
import {
  countElements,
  findElement,
  findElements,
  isElement,
  parseHtmlDocument,
  tagOf,
  type DomDocument,
  type DomElement,
} from './htmlDom.js';
import { parseLightHtmlDocument } from './htmlLightDom.js';
import { readHtmlMetadata } from './htmlMetadata.js';
import { createManualHeadings, dropRunningTitles } from './htmlManualHeadings.js';
import { findArticle, hasHeading } from './htmlReadability.js';
import { textOf, walkHtml } from './htmlWalk.js';
import { readTextInput } from './input.js';
import { closeXhtmlEmptyElements } from './xhtml.js';

/** Above this many elements (after boilerplate removal) Readability is skipped; see below. */
const READABILITY_MAX_ELEMENTS = 20_000;

/**
 * HTML: the main content without boilerplate. The nesting depth is checked on the raw string
 * before any DOM exists; a light DOM holds the page; scripts, hidden elements, navigation, page
 * header and footer, asides, cookie banners and ads go; Readability picks the article from
 * linkedom's DOM of the page (falling back to `<main>`, `<article>` or `<body>` when it finds
 * nothing, when the page is too large for it to finish quickly, or when a documentation generator
 * made it); the walk turns what is left into blocks, on a generator's page with its markup's word
 * on which titles are section titles (see htmlManualHeadings).
 */
export async function parseHtml(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const html = closeXhtmlEmptyElements(decodeHtml(bytes, ctx));
  assertHtmlDepth(html, ctx.limits.maxNestingDepth, ctx.fileName);
  const builder = createDocumentBuilder(ctx, extensionOf(ctx.fileName) === '.htm' ? '.htm' : '.html');
  await builder.checkpoint();

  // The light DOM reads every page; linkedom's, which costs ~7× more to build, only the pages
  // Readability reads, since Readability needs a full DOM.
  const page = parseOrThrow(html, ctx, parseLightHtmlDocument);
  const metadata = readHtmlMetadata(page);
  const manual = isGeneratedManual(page);
  removeBoilerplate(page);
  // Readability costs ~25 µs per element (2.3 s for a 5 MB page); above the size of any real
  // article page the author's own <main>/<article> markup picks the content instead. Pages of a
  // documentation generator skip it too: their chrome is known by class (removed above), and
  // Readability's link-density rule drops their short sections ("5.5. What is missing…", a man
  // page's SEE ALSO) with their titles; on Publican's pages (the Debian Handbook) it also dropped
  // whole subsections, sidebars and figures, and split paragraphs at every <acronym>.
  const readable = !manual && countElements(page) <= READABILITY_MAX_ELEMENTS;
  let root: DomElement | null = null;
  let mainContent = 'readability';
  if (readable) {
    const document = parseOrThrow(html, ctx, parseHtmlDocument);
    removeBoilerplate(document);
    const article = findArticle(document);
    // Readability drops article headers ("post-header" looks like chrome to it), and with them the
    // page's h1: put that heading back in front when the article lost it.
    const pageHeading = article && findPageHeading(page);
    if (article && pageHeading && !hasHeading(article, pageHeading)) builder.heading(pageHeading, 1);
    root = article;
  }
  if (!root) {
    // The light DOM, which Readability never touched, holds the page without its boilerplate.
    const main =
      findElement(page, (element) => tagOf(element) === 'main') ??
      findElement(page, (element) => element.getAttribute('role') === 'main');
    const article = findElement(page, (element) => tagOf(element) === 'article');
    root = main ?? article ?? page.body ?? page.documentElement;
    mainContent = main ? 'main' : article ? 'article' : 'body';
  }
  await builder.checkpoint();
  if (root) walkHtml(root, builder, manual ? createManualHeadings() : undefined);
  const parsed = builder.finish({ ...metadata, extra: { ...metadata.extra, mainContent } });
  if (manual) dropRunningTitles(parsed.blocks);
  levelsFromSectionNumbers(parsed.blocks);
  return parsed;
}

/** Generators of documentation whose pages are read without Readability (see parseHtml). */
const MANUAL_GENERATOR = /docbook|docutils|sphinx|makeinfo|texi2any|texi2html|asciidoc|publican|sisu/i;

function isGeneratedManual(document: DomDocument): boolean {
  return findElements(document, (element) => tagOf(element) === 'meta').some(
    (meta) =>
      (meta.getAttribute('name') ?? '').toLowerCase() === 'generator' &&
      MANUAL_GENERATOR.test(meta.getAttribute('content') ?? ''),
  );
}

/** The h1 that titles the page: the first one inside main/article, else the only one. */
function findPageHeading(document: DomDocument): string | null {
  const all = findElements(document, (element) => tagOf(element) === 'h1');
  const scoped = all.find(insideMainContent);
  const heading = scoped ?? (all.length === 1 ? all[0] : null);
  const text = heading ? textOf(heading).replace(/\n/g, ' ') : '';
  return text || null;
}

function insideMainContent(element: DomElement): boolean {
  for (let node = element.parentNode; node && isElement(node); node = node.parentNode) {
    const tag = tagOf(node);
    if (tag === 'main' || tag === 'article' || node.getAttribute('role') === 'main') return true;
  }
  return false;
}

function parseOrThrow<T>(html: string, ctx: ParseContext, parse: (html: string) => T): T {
  try {
    return parse(html);
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
