import type { Budget } from './budget.js';
import { tidyText } from './budget.js';
import { flag, numberingOf, outlineLevel, type DocxStyles, type NumberingRef } from './docxStyles.js';
import { roman, type DocxNotes } from './docxNotes.js';
import { altTextOf, type ImageRef } from './officeImages.js';
import type { Relationship } from './officePackage.js';
import { readDocxTable } from './docxTable.js';
import { attr, childElements, firstChild, ownText, path, topmost, type XmlElement } from './xml.js';

/** A stretch of a paragraph's text that lies on one page (page breaks split paragraphs). */
export interface Segment {
  text: string;
  page: number;
}

/** What the body walk finds, in reading order; `parseDocx` turns it into blocks. */
export type BodyItem =
  | {
      kind: 'paragraph';
      segments: Segment[];
      styleId: string | undefined;
      /** Direct `w:outlineLvl`: a level, null for explicit body text, undefined when absent. */
      outline: number | null | undefined;
      /** Direct `w:numPr`, undefined when absent (the style may still give one). */
      numbering: NumberingRef | undefined;
    }
  | { kind: 'table'; cells: string[][]; hasHeader: boolean; caption: string | null; page: number }
  | { kind: 'image'; ref: ImageRef };

export interface BodyWalk {
  items: BodyItem[];
  /** Endnotes cited in the body, as `[i] text` paragraphs for the end of the document. */
  endnotes: BodyItem[];
  /** Last page reached: explicit breaks, section breaks and Word's rendered breaks, plus one. */
  pages: number;
}

interface WalkEnv {
  notes?: DocxNotes;
  rels: ReadonlyMap<string, Relationship>;
  styles: DocxStyles;
  budget: Budget;
  warnings: string[];
}

const DRAWING_PARTS = new Set(['pic', 'txbxContent', 'chart', 'imagedata']);
const NOWHERE = new Set<string>();
/** Inline wrappers whose runs are part of the paragraph's text. */
const INLINE_WRAPPERS = new Set([
  'hyperlink',
  'ins',
  'smartTag',
  'customXml',
  'fldSimple',
  'dir',
  'bdo',
  'moveTo',
]);
/** Block-level wrappers whose paragraphs and tables belong to the body. */
const BLOCK_WRAPPERS = new Set(['customXml', 'ins', 'moveTo']);

/**
 * Walks `w:body` in order: paragraphs (with their text split at page breaks), tables (spans expanded,
 * nested tables flattened to text) and pictures. Pages advance at `w:br w:type="page"`,
 * `w:pageBreakBefore` (direct or from the style), section breaks that start a new page, and Word's
 * `w:lastRenderedPageBreak` — except the rendered break Word writes right after an explicit one.
 * A footnote or endnote reference stays in the text as `[1]` (endnotes `[i]`, Word's defaults) and
 * the note's text follows as a paragraph starting with the same mark: a footnote right after the
 * citing paragraph, an endnote in `endnotes` for the end of the document.
 */
export function walkBody(body: XmlElement, env: WalkEnv): BodyWalk {
  let page = 1;
  let afterExplicitBreak = false;
  let anyContent = false;
  const endnotes: BodyItem[] = [];
  const noteCount = { footnote: 0, endnote: 0 };

  const explicitBreak = (): void => {
    page += 1;
    afterExplicitBreak = true;
  };
  const renderedBreak = (): void => {
    if (afterExplicitBreak) afterExplicitBreak = false;
    else page += 1;
  };

  function blocks(container: XmlElement, out: BodyItem[]): void {
    for (const child of childElements(container)) {
      if (child.local === 'p') paragraph(child, out);
      else if (child.local === 'tbl') table(child, out);
      else if (child.local === 'sdt') {
        const content = firstChild(child, 'sdtContent');
        if (content) blocks(content, out);
      } else if (child.local === 'AlternateContent') {
        const choice = chooseAlternate(child);
        if (choice) blocks(choice, out);
      } else if (BLOCK_WRAPPERS.has(child.local)) blocks(child, out);
    }
  }

  function paragraph(p: XmlElement, out: BodyItem[]): void {
    env.budget.checkAborted();
    const pPr = firstChild(p, 'pPr');
    const styleId = attr(firstChild(pPr, 'pStyle'), 'w:val');
    const breakBefore =
      flag(firstChild(pPr, 'pageBreakBefore')) ?? env.styles.paragraph(styleId).pageBreakBefore;
    if (breakBefore && anyContent) explicitBreak();

    const segments: Segment[] = [];
    const side: BodyItem[] = [];
    const footnotes: BodyItem[] = [];
    let current = '';
    let currentPage = page;
    const append = (text: string): void => {
      if (text === '') return;
      if (current === '') currentPage = page;
      current += text;
      if (/\S/.test(text)) {
        afterExplicitBreak = false;
        anyContent = true;
      }
    };
    const flush = (): void => {
      if (/\S/.test(current)) segments.push({ text: current, page: currentPage });
      current = '';
    };

    const run = (r: XmlElement): void => {
      for (const child of childElements(r)) {
        switch (child.local) {
          case 't':
            append(ownText(child));
            break;
          case 'tab':
          case 'ptab':
            append('\t');
            break;
          case 'br':
            if (attr(child, 'w:type') === 'page') {
              flush();
              explicitBreak();
            } else append(attr(child, 'w:type') === 'column' ? ' ' : '\n');
            break;
          case 'cr':
            append('\n');
            break;
          case 'noBreakHyphen':
            append('-');
            break;
          case 'footnoteReference':
          case 'endnoteReference':
            append(noteReference(child, footnotes));
            break;
          case 'lastRenderedPageBreak':
            flush();
            renderedBreak();
            break;
          case 'drawing':
          case 'pict':
          case 'object':
            drawing(child, side);
            break;
          case 'AlternateContent': {
            const choice = chooseAlternate(child);
            if (choice) run(choice);
            break;
          }
          default:
            break;
        }
      }
    };
    const inline = (container: XmlElement): void => {
      for (const child of childElements(container)) {
        if (child.local === 'r') run(child);
        else if (child.local === 'sdt') {
          const content = firstChild(child, 'sdtContent');
          if (content) inline(content);
        } else if (child.local === 'oMath' || child.local === 'oMathPara') {
          append(mathText(child));
        } else if (child.local === 'AlternateContent') {
          const choice = chooseAlternate(child);
          if (choice) inline(choice);
        } else if (INLINE_WRAPPERS.has(child.local)) inline(child);
      }
    };
    inline(p);
    flush();
    for (const segment of segments) env.budget.addText(segment.text);
    out.push({
      kind: 'paragraph',
      segments,
      styleId,
      outline: outlineLevel(pPr),
      numbering: numberingOf(pPr),
    });
    for (const item of footnotes) out.push(item);
    for (const item of side) out.push(item);
    const sectionType = attr(path(pPr, 'sectPr', 'type'), 'w:val');
    if (firstChild(pPr, 'sectPr') && sectionType !== 'continuous' && sectionType !== 'nextColumn')
      explicitBreak();
  }

  /** The mark left in the text; the note's own text becomes a paragraph (footnotes) or an endnote. */
  function noteReference(reference: XmlElement, footnotes: BodyItem[]): string {
    const kind = reference.local === 'endnoteReference' ? 'endnote' : 'footnote';
    noteCount[kind] += 1;
    const label = kind === 'endnote' ? roman(noteCount[kind]) : String(noteCount[kind]);
    const id = attr(reference, 'w:id') ?? '';
    const note = (kind === 'endnote' ? env.notes?.endnotes : env.notes?.footnotes)?.get(id);
    if (!note) return `[${label}]`;
    // The note is walked like body content, without moving the body's page count.
    const saved = { page, afterExplicitBreak, anyContent };
    const inner: BodyItem[] = [];
    blocks(note, inner);
    ({ page, afterExplicitBreak, anyContent } = saved);
    const text = tidyText(
      inner
        .flatMap((item) =>
          item.kind === 'paragraph'
            ? item.segments.map((s) => s.text)
            : item.kind === 'table'
              ? item.cells.map((row) => row.join(' | '))
              : [],
        )
        .join(' '),
    ).replace(/\n/g, ' ');
    if (text) {
      const paragraphItem: BodyItem = {
        kind: 'paragraph',
        segments: [{ text: `[${label}] ${text}`, page }],
        styleId: undefined,
        outline: null,
        numbering: undefined,
      };
      (kind === 'endnote' ? endnotes : footnotes).push(paragraphItem);
    }
    return `[${label}]`;
  }

  /** Pictures (DrawingML and VML) become image references; text boxes are walked as body content. */
  function drawing(element: XmlElement, out: BodyItem[]): void {
    const docPr = topmost(element, new Set(['docPr']), NOWHERE)[0];
    for (const part of topmost(element, DRAWING_PARTS, NOWHERE)) {
      if (part.local === 'txbxContent') {
        blocks(part, out);
      } else if (part.local === 'chart') {
        env.warnings.push(`a chart on page ${page} was not extracted`);
      } else if (part.local === 'imagedata') {
        const shape = element.children.find(
          (c): c is XmlElement => typeof c === 'object' && c.local === 'shape',
        );
        image(attr(part, 'r:id'), altTextOf(attr(shape, 'alt'), attr(part, 'o:title')), out);
      } else {
        const blip = topmost(part, new Set(['blip']), NOWHERE)[0];
        const cNvPr = path(part, 'nvPicPr', 'cNvPr');
        const alt = altTextOf(
          attr(cNvPr, 'descr'),
          attr(docPr, 'descr'),
          attr(cNvPr, 'title'),
          attr(docPr, 'title'),
        );
        image(attr(blip, 'r:embed'), alt, out);
      }
    }
  }

  function image(relId: string | undefined, altText: string | null, out: BodyItem[]): void {
    const rel = relId === undefined ? undefined : env.rels.get(relId);
    if (!rel || rel.external) {
      if (relId !== undefined)
        env.warnings.push(`a linked or missing picture (${relId}) on page ${page} was skipped`);
      return;
    }
    anyContent = true;
    out.push({ kind: 'image', ref: { part: rel.target, altText, page } });
  }

  function table(tbl: XmlElement, out: BodyItem[]): void {
    const startPage = page;
    const deferred: BodyItem[] = [];
    const read = readDocxTable(tbl, (tc) => cellText(tc, deferred), env.budget);
    if (read) {
      anyContent = true;
      out.push({ kind: 'table', ...read, page: startPage });
    }
    for (const item of deferred) out.push(item);
  }

  /** A cell's paragraphs joined by line breaks; a nested table becomes "a | b" lines. */
  function cellText(tc: XmlElement, deferred: BodyItem[]): string {
    const inner: BodyItem[] = [];
    blocks(tc, inner);
    const lines: string[] = [];
    for (const item of inner) {
      if (item.kind === 'paragraph') {
        const text = tidyText(item.segments.map((s) => s.text).join(' '));
        if (text) lines.push(text);
      } else if (item.kind === 'table') {
        for (const row of item.cells) lines.push(row.join(' | '));
      } else deferred.push(item);
    }
    return lines.join('\n');
  }

  const items: BodyItem[] = [];
  blocks(body, items);
  return { items, endnotes, pages: page };
}

/** `mc:AlternateContent`: the first `mc:Choice` (what Word itself renders), else the fallback. */
function chooseAlternate(alternate: XmlElement): XmlElement | undefined {
  return firstChild(alternate, 'Choice') ?? firstChild(alternate, 'Fallback');
}

function mathText(math: XmlElement): string {
  return topmost(math, new Set(['t']), NOWHERE)
    .map((t) => ownText(t))
    .join('');
}
