import type { ParseContext } from '../context.js';
import { titleFromBlocks } from '../documentTitle.js';
import { ParseError } from '../errors.js';
import { baseName, titleFromFileName } from '../fileName.js';
import { numberBlocks, type Block, type Extension, type ParsedDocument } from '../model.js';
import { assertPageCount, createBudget, tidyText, type Budget } from './budget.js';
import { openOdfPackage, type OdfPackage } from './odfPackage.js';
import { readOdfStyles, type OdfStyles } from './odfStyles.js';
import { readOdfTable } from './odfTable.js';
import { createOdfTextWalker } from './odfText.js';
import type { OdfItem, OdfTextWalker } from './odfWalk.js';
import { createImageLoader } from './officeImages.js';
import { levelsFromTypedNumbers } from './officeHeadingNumbers.js';
import { buildMetadata, textPages } from './officeMetadata.js';
import { NOTES_PREFIX } from './parsePptx.js';
import { addSheetTable } from './parseXlsx.js';
import { attr, childElements, firstChild, type XmlElement } from './xml.js';
import { formatNumber, renderIsoDate } from './xlsxValues.js';

interface Opened {
  pkg: OdfPackage;
  styles: OdfStyles;
  budget: Budget;
  warnings: string[];
  walker: OdfTextWalker;
}

async function open(
  bytes: Uint8Array,
  ctx: ParseContext,
  kind: 'text' | 'spreadsheet' | 'presentation',
): Promise<Opened> {
  const budget = createBudget(ctx);
  const warnings: string[] = [];
  const pkg = await openOdfPackage(bytes, ctx, kind);
  budget.checkAborted();
  const styles = readOdfStyles(pkg.styleContainers);
  const walker = createOdfTextWalker({ styles, budget, warnings, limits: ctx.limits });
  return { pkg, styles, budget, warnings, walker };
}

/** Loads the pictures of walked items, in place, and numbers tables and images. */
async function resolveImages(items: OdfItem[], opened: Opened): Promise<Block[]> {
  const images = createImageLoader(opened.pkg, opened.warnings);
  const blocks: Block[] = [];
  for (const item of items) {
    if (item.type !== 'imageRef') blocks.push(item);
    else {
      opened.budget.checkAborted();
      const block = await images.toBlock(item.ref);
      if (block) blocks.push(block);
    }
  }
  numberBlocks(blocks);
  return blocks;
}

function toDocument(
  format: Extension,
  ctx: ParseContext,
  opened: Opened,
  blocks: Block[],
  numPages: number,
  fallbackTitle: string,
  extra: Record<string, string | number | boolean> = {},
  notes: ReadonlyMap<number, string> = new Map(),
): ParsedDocument {
  return {
    format,
    sourceFile: baseName(ctx.fileName),
    metadata: buildMetadata({ properties: opened.pkg.properties, fallbackTitle, numPages, extra }),
    pages: textPages(numPages, notes),
    blocks,
    warnings: opened.warnings,
  };
}

/**
 * Parses an OpenDocument text (.odt) as the DOCX reader does a Word file: headings from `text:h`
 * outline levels and Title/Subtitle styles, paragraphs, lists, tables with spans expanded, pictures
 * with alt text, text boxes and shapes, footnotes and endnotes linked by their citation. Pages from
 * page-break styles and soft page breaks (`numPages` from meta.xml's statistics when recorded).
 */
export async function parseOdt(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const opened = await open(bytes, ctx, 'text');
  const items: OdfItem[] = [];
  opened.walker.children(opened.pkg.body, items);
  items.push(...opened.walker.endnotes());
  const blocks = await resolveImages(items, opened);
  if (blocks.length === 0)
    throw new ParseError('empty_document', 'the text document has no text, table or picture');
  levelsFromTypedNumbers(blocks);
  const lastPage = blocks.reduce((last, block) => Math.max(last, block.page), opened.walker.page);
  const numPages = Math.max(opened.pkg.properties.pages ?? lastPage, lastPage);
  assertPageCount(numPages, ctx.limits.maxPages, 'pages');
  const fallback = titleFromBlocks(blocks) ?? titleFromFileName(ctx.fileName);
  return toDocument('.odt', ctx, opened, blocks, numPages, fallback);
}

/**
 * Parses an OpenDocument spreadsheet (.ods) as the XLSX reader does a workbook: each sheet a page
 * with a level-1 heading of its name and one table of its used range (caption = sheet name); hidden
 * sheets included and noted. Values as a spreadsheet shows them, typed like the XLSX reader's:
 * numbers, percentages, ISO 8601 dates and times, TRUE/FALSE, text; a merged value in its first cell.
 */
export async function parseOds(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const opened = await open(bytes, ctx, 'spreadsheet');
  const sheets = childElements(opened.pkg.body, 'table');
  assertPageCount(sheets.length, ctx.limits.maxPages, 'sheets');
  const { styles } = opened;
  const blocks: Block[] = [];
  const notes = new Map<number, string>();
  const names: string[] = [];
  const hidden: string[] = [];
  let filled = 0;
  for (const [i, sheet] of sheets.entries()) {
    opened.budget.checkAborted();
    const page = i + 1;
    const name = attr(sheet, 'table:name') ?? `Sheet ${page}`;
    names.push(name);
    blocks.push({ type: 'heading', text: name, level: 1, page });
    const remarks: string[] = [];
    if (styles.style(attr(sheet, 'table:style-name')).hidden) {
      hidden.push(name);
      remarks.push(`sheet "${name}" is hidden in the workbook`);
    }
    const table = readOdfTable(
      sheet,
      { budget: opened.budget, limits: ctx.limits, cellText: (cell) => sheetValue(cell, opened.walker) },
      'sheet',
    );
    filled += table.filled;
    addSheetTable(blocks, remarks, table.cells, name, page);
    if (remarks.length > 0) notes.set(page, remarks.join('; '));
  }
  if (filled === 0) throw new ParseError('empty_document', 'the spreadsheet has no cell with a value');
  numberBlocks(blocks);
  const extra: Record<string, string> = { sheets: names.join(', ') };
  if (hidden.length > 0) extra.hiddenSheets = hidden.join(', ');
  return toDocument(
    '.ods',
    ctx,
    opened,
    blocks,
    sheets.length,
    titleFromFileName(ctx.fileName),
    extra,
    notes,
  );
}

/** What a spreadsheet cell shows, rendered like the XLSX reader renders the same value. */
function sheetValue(cell: XmlElement, walker: OdfTextWalker): string {
  const type = attr(cell, 'office:value-type');
  const number = Number(attr(cell, 'office:value') ?? '');
  switch (type) {
    case 'float':
    case 'currency':
      if (Number.isFinite(number) && attr(cell, 'office:value') !== undefined) return formatNumber(number);
      break;
    case 'percentage':
      if (Number.isFinite(number) && attr(cell, 'office:value') !== undefined)
        return `${formatNumber(number * 100)}%`;
      break;
    case 'date': {
      const value = attr(cell, 'office:date-value');
      if (value) return renderIsoDate(value);
      break;
    }
    case 'time': {
      const time = /^-?PT(\d+)H(\d+)M(\d+(?:\.\d+)?)S$/.exec(attr(cell, 'office:time-value') ?? '');
      if (time)
        return [time[1], time[2], time[3]]
          .map((part) => (part ?? '0').split('.')[0]?.padStart(2, '0'))
          .join(':');
      break;
    }
    case 'boolean': {
      const value = attr(cell, 'office:boolean-value');
      if (value !== undefined) return value === 'true' || value === '1' ? 'TRUE' : 'FALSE';
      break;
    }
    default:
      break;
  }
  return childElements(cell)
    .filter((child) => child.local === 'p' || child.local === 'h')
    .map((p) => walker.paragraphText(p))
    .filter((text) => text !== '')
    .join('\n');
}

/** Presentation frames that hold layout boilerplate, not slide content. */
const BOILERPLATE_CLASSES = new Set(['header', 'footer', 'date-time', 'page-number', 'page', 'handout']);

/**
 * Parses an OpenDocument presentation (.odp) as the PPTX reader does: one page per `draw:page`, its
 * title frame a level-1 heading (else the slide's own name, unless it is a generated "pageN"), then
 * its text boxes, lists, tables and pictures in document order, then the speaker notes as one
 * paragraph starting with "Notes: ".
 */
export async function parseOdp(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const opened = await open(bytes, ctx, 'presentation');
  const slides = childElements(opened.pkg.body, 'page');
  assertPageCount(slides.length, ctx.limits.maxPages, 'slides');
  const { walker, budget } = opened;
  const items: OdfItem[] = [];
  let firstTitle: string | null = null;
  for (const [i, slide] of slides.entries()) {
    budget.checkAborted();
    const page = i + 1;
    walker.page = page;
    const titleFrame = childElements(slide, 'frame').find((f) => attr(f, 'presentation:class') === 'title');
    const titleText = titleFrame ? frameText(titleFrame, walker) : '';
    const name = attr(slide, 'draw:name') ?? '';
    const title = titleText || (/^(page|slide)\s*\d+$/i.test(name) ? '' : tidyText(name));
    if (title) {
      firstTitle ??= title;
      budget.addText(title);
      items.push({ type: 'heading', text: title, level: 1, page });
    }
    for (const child of childElements(slide)) {
      if (child === titleFrame || child.local === 'notes') continue;
      if (BOILERPLATE_CLASSES.has(attr(child, 'presentation:class') ?? '')) continue;
      walker.element(child, items);
      walker.page = page;
    }
    const notesFrames = childElements(firstChild(slide, 'notes') ?? slide, 'frame').filter(
      (f) => attr(f, 'presentation:class') === 'notes',
    );
    const speakerNotes = notesFrames
      .map((f) => frameText(f, walker, '\n'))
      .filter(Boolean)
      .join('\n');
    if (speakerNotes) {
      budget.addText(speakerNotes);
      items.push({ type: 'paragraph', text: NOTES_PREFIX + speakerNotes, page });
    }
  }
  const blocks = await resolveImages(items, opened);
  if (blocks.length === 0)
    throw new ParseError('empty_document', 'the presentation has no text, table or picture');
  return toDocument(
    '.odp',
    ctx,
    opened,
    blocks,
    slides.length,
    firstTitle ?? titleFromFileName(ctx.fileName),
    {
      slides: slides.length,
    },
  );
}

/** The paragraphs of a frame's text box, joined. */
function frameText(frame: XmlElement, walker: OdfTextWalker, separator = ' '): string {
  const box = firstChild(frame, 'text-box');
  if (!box) return '';
  const lines: string[] = [];
  const collect = (container: XmlElement): void => {
    for (const child of childElements(container)) {
      if (child.local === 'p' || child.local === 'h') lines.push(walker.paragraphText(child));
      else if (child.local === 'list' || child.local === 'list-item') collect(child);
    }
  };
  collect(box);
  return tidyText(lines.filter(Boolean).join(separator));
}
