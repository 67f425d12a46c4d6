import type { Block } from '../model.js';
import { isElement, tagOf, TEXT_NODE, type DomElement, type DomNode } from './htmlDom.js';
import { wordSet } from './input.js';

/**
 * What a documentation generator's markup says about which titles are section titles, beyond the
 * h1–h6 tags. Asked by the walk, in document order, about every heading and paragraph of a page
 * that a generator made; it remembers the section numbers it has met on the page.
 */
export interface ManualHeadings {
  /**
   * The level of an h1–h6 as a section title (its tag's unless the markup says otherwise), or null
   * when it titles no section and is read as a paragraph.
   */
  headingLevel(element: DomElement, text: string, tagLevel: number): number | null;
  /** The level of a paragraph that is a section title set as a bold line, else null. */
  paragraphHeadingLevel(element: DomElement, text: string): number | null;
}

/**
 * The boxes DocBook sets apart from the text (`<div class="note"><h3 class="title">Note</h3>`):
 * their "Note" or "Caution" labels a box, not a section, and read as a heading it would cut the
 * section it stands in, whose text goes on after the box.
 */
const ADMONITIONS = wordSet('note tip caution warning important');
/** The credits of a DocBook title page (`<h3 class="author">John Fleck</h3>`): a byline. */
const CREDITS = wordSet('author corpauthor editor othercredit collab');
/** A section title is a line, not a sentence: beyond this it is a bold paragraph. */
const MAX_TITLE_LENGTH = 120;
/** A section title set as a paragraph is a subsection ("14.1 Known issues"): its number has dots. */
const DOTTED_NUMBER = /^(\d{1,3}(?:\.\d{1,3})+)\.?\s/u;
/**
 * The section number a title opens with ("14", "9.1", from "Chapter 4."), followed by a word in any
 * script: "14. バグの報告" is as numbered as "14. Reporting bugs".
 */
const SECTION_NUMBER = /^(?:(?:chapter|appendix)\s+)?(\d{1,3}(?:\.\d{1,3})*)\.?\s+["'“(]?\p{L}/iu;

function sectionNumber(title: string): string | null {
  return SECTION_NUMBER.exec(title.trim())?.[1] ?? null;
}

export function createManualHeadings(): ManualHeadings {
  /** Section numbers of the headings met so far ("14", "14.6"), without a trailing dot. */
  const numbers = new Set<string>();
  const remember = (text: string): void => {
    const number = sectionNumber(text);
    if (number) numbers.add(number);
  };
  return {
    headingLevel(element, text, tagLevel) {
      const parent = element.parentNode;
      if (hasClass(element, CREDITS)) return null;
      if (hasClass(element, 'title') && parent && isElement(parent) && hasClass(parent, ADMONITIONS))
        return null;
      remember(text);
      // A reference page (DocBook's refentry) titles itself in its name division, at the tag level
      // of its own sections ("vacuumdb", then "Synopsis", "Description"): the page's title is above them.
      if (parent && isElement(parent) && hasClass(parent, 'refnamediv')) return 1;
      return tagLevel;
    },
    paragraphHeadingLevel(element, text) {
      const title = text.trim();
      if (title.length > MAX_TITLE_LENGTH || title.includes('\n')) return null;
      const number = DOTTED_NUMBER.exec(title)?.[1];
      if (!number || !isSetInBold(element)) return null;
      // Only a number that goes on from a heading of the page (14.1 under "14. Reporting bugs"): a
      // bold numbered line elsewhere may be a step or a list, not a section.
      const parentNumber = number.slice(0, number.lastIndexOf('.'));
      if (!numbers.has(parentNumber)) return null;
      numbers.add(number);
      // Its depth is the number's, whatever follows it ("18.6 128MB USB", "6.1.1 ¿Por qué…").
      return Math.min(6, number.split('.').length);
    },
  };
}

function hasClass(element: DomElement, names: ReadonlySet<string> | string): boolean {
  const tokens = (element.getAttribute('class') ?? '').split(/\s+/);
  return typeof names === 'string' ? tokens.includes(names) : tokens.some((token) => names.has(token));
}

/** A paragraph whose class says bold (SiSU's `<p class="bold">`) or whose text is all in b/strong. */
function isSetInBold(paragraph: DomElement): boolean {
  if (hasClass(paragraph, 'bold')) return true;
  let sawText = false;
  const allBold = (node: DomNode, bold: boolean): boolean => {
    if (node.nodeType === TEXT_NODE) {
      if ((node.textContent ?? '').trim() === '') return true;
      sawText = true;
      return bold;
    }
    if (!isElement(node)) return true;
    const inBold = bold || tagOf(node) === 'b' || tagOf(node) === 'strong';
    for (let child = node.firstChild; child; child = child.nextSibling)
      if (!allBold(child, inBold)) return false;
    return true;
  };
  return allBold(paragraph, false) && sawText;
}

/**
 * Drops the running title a generator sets above a page's own numbered title: SiSU opens every page
 * of the live manual with the book's title and the chapter's, each an `<h1>`, over "9. Customizing
 * contents". Only the run of headings that opens the page counts, with no text between them, and
 * only unnumbered ones before its first numbered title and at that title's tag level: a book title
 * over its first chapter (an `<h1>` over an `<h2>`), or over text, stays. Run before levels are
 * taken from section numbers, while levels are still the tags'. Changes `blocks` in place.
 */
export function dropRunningTitles(blocks: Block[]): void {
  const headings: Array<Extract<Block, { type: 'heading' }>> = [];
  for (const block of blocks) {
    if (block.type !== 'heading') return;
    if (sectionNumber(block.text) !== null) {
      const banner = headings.filter((heading) => heading.level === block.level);
      for (const heading of banner) blocks.splice(blocks.indexOf(heading), 1);
      return;
    }
    headings.push(block);
  }
}
