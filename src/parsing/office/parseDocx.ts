import type { ParseContext } from '../context.js';
import { titleFromBlocks } from '../documentTitle.js';
import { ParseError } from '../errors.js';
import { numberBlocks, type Block, type ParsedDocument } from '../model.js';
import { assertPageCount, createBudget, tidyText } from './budget.js';
import { walkBody, type BodyItem } from './docxBody.js';
import { readDocxNumbering, readDocxStyles, type DocxNumbering, type DocxStyles } from './docxStyles.js';
import { createImageLoader } from './officeImages.js';
import { baseName, titleFromFileName } from '../fileName.js';
import { buildMetadata, readPackageProperties, textPages } from './officeMetadata.js';
import { readDocxNotes } from './docxNotes.js';
import { findRel, openMainPart } from './officePackage.js';
import { levelsFromTypedNumbers } from './officeHeadingNumbers.js';
import { createTitleLines } from './officeTitle.js';
import { firstChild } from './xml.js';

interface ListItem {
  text: string;
  level: number;
  ordered: boolean;
  numId: string;
  page: number;
}

/**
 * Parses a DOCX (WordprocessingML) from its XML parts, read through the safe ZIP: headings from
 * paragraph styles, lists from numbering, tables with spans expanded, pictures with their alt text,
 * pages from explicit and rendered page breaks (`numPages` from `docProps/app.xml` when Word recorded it),
 * footnotes and endnotes linked to their reference (see `walkBody`). Headers and footers live in
 * parts of their own, which are not read: a running header never repeats into the body.
 */
export async function parseDocx(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const budget = createBudget(ctx);
  const warnings: string[] = [];
  const { pkg, part, root, rels } = await openMainPart(bytes, ctx, {
    defaultPart: 'word/document.xml',
    rootLocal: 'document',
    kind: 'a Word document',
  });
  const body = firstChild(root, 'body');
  if (!body) throw new ParseError('corrupt_document', `${part} has no w:body`);
  budget.checkAborted();
  const stylesPart = findRel(rels, 'styles')?.target;
  const numberingPart = findRel(rels, 'numbering')?.target;
  const styles = readDocxStyles(stylesPart ? await pkg.readXml(stylesPart) : null);
  const numbering = readDocxNumbering(numberingPart ? await pkg.readXml(numberingPart) : null);
  const properties = await readPackageProperties(pkg);
  const notes = await readDocxNotes(pkg, rels);
  budget.checkAborted();

  const walk = walkBody(body, { rels, styles, budget, warnings, notes });
  const images = createImageLoader(pkg, warnings);
  const blocks: Block[] = [];
  const titleLines = createTitleLines();
  let list: ListItem[] = [];
  const flushList = (): void => {
    const first = list[0];
    if (first)
      blocks.push({ type: 'list', items: list.map(indentItem), ordered: first.ordered, page: first.page });
    list = [];
  };

  for (const item of [...walk.items, ...walk.endnotes]) {
    if (item.kind === 'paragraph') {
      const listItem = asListItem(item, styles, numbering);
      if (listItem) {
        const first = list[0];
        const sameList =
          first !== undefined &&
          first.page === listItem.page &&
          (listItem.level > first.level ||
            (listItem.ordered === first.ordered && listItem.numId === first.numId));
        if (!sameList) flushList();
        list.push(listItem);
        continue;
      }
      flushList();
      for (const block of paragraphBlocks(item, styles)) {
        if (block.type === 'heading') titleLines.push(blocks, block, isTitleLine(item, styles));
        else blocks.push(block);
      }
    } else if (item.kind === 'table') {
      flushList();
      const { cells, hasHeader, caption, page } = item;
      blocks.push({ type: 'table', table: { index: 0, pageNumber: page, cells, hasHeader, caption }, page });
    } else {
      flushList();
      budget.checkAborted();
      const block = await images.toBlock(item.ref);
      if (block) blocks.push(block);
    }
  }
  flushList();
  if (blocks.length === 0)
    throw new ParseError('empty_document', 'the Word document has no text, table or picture');
  levelsFromTypedNumbers(blocks);
  numberBlocks(blocks);

  const lastBlockPage = blocks.reduce((last, block) => Math.max(last, block.page), 1);
  const numPages = Math.max(properties.pages ?? walk.pages, walk.pages, lastBlockPage);
  assertPageCount(numPages, ctx.limits.maxPages, 'pages');
  return {
    format: '.docx',
    sourceFile: baseName(ctx.fileName),
    metadata: buildMetadata({
      properties,
      fallbackTitle: titleFromBlocks(blocks) ?? titleFromFileName(ctx.fileName),
      numPages,
      extra: properties.pages === null ? { pagesCountedFromBreaks: true } : {},
    }),
    pages: textPages(numPages),
    blocks,
    warnings,
  };
}

function headingLevelOf(item: Extract<BodyItem, { kind: 'paragraph' }>, styles: DocxStyles): number | null {
  if (item.outline !== undefined) return item.outline;
  return styles.paragraph(item.styleId).headingLevel;
}

/** A paragraph of the Title style whose level no direct outline level overrides. */
function isTitleLine(item: Extract<BodyItem, { kind: 'paragraph' }>, styles: DocxStyles): boolean {
  return item.outline === undefined && styles.paragraph(item.styleId).title;
}

function paragraphBlocks(item: Extract<BodyItem, { kind: 'paragraph' }>, styles: DocxStyles): Block[] {
  const first = item.segments[0];
  if (!first) return [];
  const level = headingLevelOf(item, styles);
  if (level !== null) {
    const text = tidyText(item.segments.map((s) => s.text).join(' ')).replace(/\n/g, ' ');
    return text ? [{ type: 'heading', text, level, page: first.page }] : [];
  }
  return item.segments.flatMap((segment): Block[] => {
    const text = tidyText(segment.text);
    return text ? [{ type: 'paragraph', text, page: segment.page }] : [];
  });
}

/** A numbered or bulleted paragraph (not a heading, not a level whose format is `none`). */
function asListItem(
  item: Extract<BodyItem, { kind: 'paragraph' }>,
  styles: DocxStyles,
  numbering: DocxNumbering,
): ListItem | null {
  const first = item.segments[0];
  if (!first || headingLevelOf(item, styles) !== null) return null;
  const ref = item.numbering ?? styles.paragraph(item.styleId).numbering;
  if (!ref || ref.numId === '0') return null;
  const format = numbering.format(ref);
  if (format === 'none') return null;
  const text = tidyText(item.segments.map((s) => s.text).join(' ')).replace(/\n/g, ' ');
  if (!text) return null;
  return {
    text,
    level: ref.level,
    // An undefined list (no numbering part) is shown by Word as plain bullets.
    ordered: format !== null && format !== 'bullet',
    numId: ref.numId,
    page: first.page,
  };
}

function indentItem(item: ListItem, _index: number, items: ListItem[]): string {
  const base = items[0]?.level ?? 0;
  return '  '.repeat(Math.max(item.level - base, 0)) + item.text;
}
