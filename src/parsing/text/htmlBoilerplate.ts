import {
  findElement,
  findElements,
  isElement,
  nextNode,
  tagOf,
  type DomDocument,
  type DomElement,
  type DomNode,
} from './htmlDom.js';
import { wordSet } from './input.js';
import { collapseWhitespace } from '../../text/whitespace.js';

/** Never content: code, styling, embedded objects and form controls. */
const NON_CONTENT = wordSet(`
  script style noscript template svg math canvas iframe object embed link meta button input select
  textarea dialog
`);
/**
 * Page chrome. Readability scores it away on long pages but keeps everything on short ones, so it
 * goes before Readability runs.
 */
const CHROME_TAGS = new Set(['nav', 'aside']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary', 'search']);
const CONSENT = /cookie|consent|gdpr|onetrust|cookiebot/i;
const AD_TOKENS = wordSet('ad ads advert adverts advertisement adsbygoogle sponsor sponsored adslot');
const PROTECTED = new Set(['html', 'body', 'main', 'article']);
/** An element holding one of these is never removed as chrome. */
const MAIN_CONTENT = new Set(['main', 'article', 'h1']);
/**
 * Class names documentation generators give their chrome: DocBook's navigation header and footer,
 * Texinfo's node header ("Next: …, Previous: …, Up: …"), texi2html's navigation bars, Sphinx's
 * sidebar, related-pages bar and the ¶ anchors it appends to every heading, Publican's
 * Prev/Up/Home/Next bars, and the tables of contents they put at the head of a chapter (the
 * sections follow, with their titles).
 */
const CHROME_CLASSES = wordSet(
  'navheader navfooter header headerlink sphinxsidebar related copiable-anchor toc mini-toc docnav',
);
/** Ids of page chrome: AsciiDoc's footer ("Last updated …"). */
const CHROME_IDS = new Set(['footer']);
/**
 * Publican's banner ("Download the ebook") and logo bar, by tag and id: an id as plain as "title"
 * names content on other pages (`<h1 id="title">`).
 */
const CHROME_TAG_IDS = new Set(['div#banner', 'p#title']);
/** A generator's credit line at the foot of a page ("This document was generated … using texi2html"). */
const GENERATOR_CREDIT =
  /^(?:this (?:document|page|file) was )?(?:generated|created|built|produced) (?:by|using|with|on)\b[^]{0,160}\b(?:texi2html|makeinfo|texinfo|sphinx|doxygen|javadoc|docbook|asciidoc|asciidoctor|publican|mkdocs|pandoc)\b/i;

/**
 * Removes what is never content (scripts, styles, form controls, hidden elements), cookie banners
 * and ads (by id/class), navigation, asides, headers and footers outside the article, the chrome of
 * documentation generators (by class) and their credit lines. An element holding the main content
 * (main, article, an h1) always stays.
 */
export function removeBoilerplate(document: DomDocument): void {
  const root = document.documentElement;
  if (!root) return;
  // One walk (a selector per rule would traverse the DOM once per rule) that steps over what it
  // dooms; removal waits until the walk is done so the walk never sees a half-detached subtree.
  const doomed: DomElement[] = [];
  let node: DomNode | null = root;
  while (node) {
    if (isElement(node) && isBoilerplate(node)) {
      doomed.push(node);
      node = nextNode(node, root, false);
    } else {
      node = nextNode(node, root);
    }
  }
  for (const element of doomed) element.remove();
}

function isBoilerplate(element: DomElement): boolean {
  const tag = tagOf(element);
  if (NON_CONTENT.has(tag)) return true;
  if (PROTECTED.has(tag)) return false;
  // A page's header and footer are chrome; an article's own header (title, byline) is not.
  const chromeTag =
    CHROME_TAGS.has(tag) || ((tag === 'header' || tag === 'footer') && !insideArticle(element));
  if (tag === 'p' || tag === 'address') {
    const text = collapseWhitespace(element.textContent ?? '');
    if (text.length < 240 && GENERATOR_CREDIT.test(text)) return true;
  }
  if (tag === 'table' && isLinkBar(element)) return !holdsMainContent(element);
  // Most elements (p, li, td…) carry no attributes: skip the attribute rules for them.
  if (!element.hasAttributes()) return chromeTag && !holdsMainContent(element);
  if (tag === 'a' && isParagraphNumber(element)) return true;
  if (isHidden(element)) return true;
  const id = element.getAttribute('id') ?? '';
  const className = element.getAttribute('class') ?? '';
  const chrome =
    chromeTag ||
    CHROME_ROLES.has(element.getAttribute('role') ?? '') ||
    className.split(/\s+/).some((name) => CHROME_CLASSES.has(name)) ||
    CHROME_IDS.has(id) ||
    CHROME_TAG_IDS.has(`${tag}#${id}`);
  const identity = `${id} ${className}`;
  const flagged =
    CONSENT.test(identity) || CONSENT.test(element.getAttribute('aria-label') ?? '') || isAd(identity);
  return (chrome || flagged) && !holdsMainContent(element);
}

/** Labels of the links that step through a manual's pages. */
const STEP_LINK = /^(?:prev|previous|next|up|home|top|toc|contents|table of contents)$/;

/**
 * A table of links and nothing else, one of which steps to the previous or next page: the
 * navigation band of a generated manual (SiSU's "<< previous | toc | next >>" with the site's home
 * links), whatever its classes. Images count by their alternative text.
 */
function isLinkBar(table: DomElement): boolean {
  let links = 0;
  let steps = 0;
  let prose = false;
  const visit = (node: DomNode, inLink: boolean): void => {
    if (prose) return;
    if (!isElement(node)) {
      // Outside links only separators ("|", "•", "[", "]") may stand.
      if (!inLink && /[\p{L}\p{N}]/u.test(node.textContent ?? '')) prose = true;
      return;
    }
    const tag = tagOf(node);
    if (tag === 'a' && !inLink) {
      const label = linkLabel(node);
      if (label === '') return;
      links += 1;
      if (label.split(' ').length > 4) prose = true;
      if (STEP_LINK.test(label)) steps += 1;
    }
    for (let child = node.firstChild; child; child = child.nextSibling) visit(child, inLink || tag === 'a');
  };
  visit(table, false);
  return !prose && links >= 2 && steps >= 1;
}

/** A link's text, or its images' alternative text, lower-cased, without arrows and guillemets. */
function linkLabel(link: DomElement): string {
  const alt = findElements(link, (element) => tagOf(element) === 'img')
    .map((image) => image.getAttribute('alt') ?? '')
    .join(' ');
  return `${link.textContent ?? ''} ${alt}`
    .replace(/[<>«»‹›←→↑⇐⇒\u00a0\s]+/gu, ' ')
    .trim()
    .toLowerCase();
}

/**
 * A paragraph's number linking to itself (`<a href="#618">618</a>`): SiSU prints one in the margin
 * of every paragraph for citing it, as Sphinx's "¶" marks a heading. It is no part of the text.
 */
function isParagraphNumber(link: DomElement): boolean {
  const href = link.getAttribute('href') ?? '';
  return /^#\d+$/.test(href) && (link.textContent ?? '').trim() === href.slice(1);
}

function isHidden(element: DomElement): boolean {
  if (element.hasAttribute('hidden') || element.getAttribute('aria-hidden') === 'true') return true;
  const style = element.getAttribute('style');
  return style !== null && /(display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style);
}

/** Whole tokens only: "header", "shadow" and "download" contain "ad" but are not ads. */
function isAd(identity: string): boolean {
  // Every ad token holds "ad" or "sponsor": most identities hold neither and need no splitting.
  if (!/ad|sponsor/i.test(identity)) return false;
  return identity
    .toLowerCase()
    .split(/[\s_-]+/)
    .some((token) => AD_TOKENS.has(token));
}

function holdsMainContent(element: DomElement): boolean {
  return findElement(element, (candidate) => MAIN_CONTENT.has(tagOf(candidate))) !== null;
}

function insideArticle(element: DomElement): boolean {
  for (let node = element.parentNode; node; node = node.parentNode) {
    if (isElement(node) && (tagOf(node) === 'article' || tagOf(node) === 'main')) return true;
  }
  return false;
}
