import type { ParseContext } from '../context.js';
import { ParseError } from '../errors.js';
import { numberBlocks, type Block, type ParsedDocument } from '../model.js';
import { assertPageCount, createBudget } from './budget.js';
import { createImageLoader } from './officeImages.js';
import { baseName, titleFromFileName } from '../fileName.js';
import { buildMetadata, readPackageProperties, textPages } from './officeMetadata.js';
import { findRel, isRelType, openMainPart, type OfficePackage, type Relationship } from './officePackage.js';
import { readNotes, readSlide, textParagraphs } from './pptxSlide.js';
import { attr, childElements, descendants, firstChild } from './xml.js';

/** Marks speaker notes in the text, so a reader (or a retriever) knows they were not on the slide. */
export const NOTES_PREFIX = 'Notes: ';

/**
 * Parses a PPTX from its XML parts, read through the safe ZIP. Slides come in the order of
 * `ppt/presentation.xml`'s `p:sldIdLst`; each slide is a page whose title placeholder is a level-1
 * heading, followed by its text, lists, tables and pictures, then its speaker notes as one paragraph
 * starting with "Notes: ". Hidden slides are included and noted on their page.
 */
export async function parsePptx(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const budget = createBudget(ctx);
  const warnings: string[] = [];
  const { pkg, root, rels } = await openMainPart(bytes, ctx, {
    defaultPart: 'ppt/presentation.xml',
    rootLocal: 'presentation',
    kind: 'a PowerPoint presentation',
  });
  const slideParts: string[] = [];
  for (const sldId of childElements(firstChild(root, 'sldIdLst') ?? root, 'sldId')) {
    const rel = rels.get(attr(sldId, 'r:id') ?? '');
    if (rel && !rel.external && isRelType(rel, 'slide')) slideParts.push(rel.target);
  }
  assertPageCount(slideParts.length, ctx.limits.maxPages, 'slides');
  const properties = await readPackageProperties(pkg);
  const images = createImageLoader(pkg, warnings);
  const blocks: Block[] = [];
  const notes = new Map<number, string>();
  const hidden: number[] = [];
  let firstTitle: string | null = null;

  for (const [i, part] of slideParts.entries()) {
    budget.checkAborted();
    const page = i + 1;
    const root = await pkg.readXml(part);
    if (!root) {
      warnings.push(`slide ${page} (${part}) is missing from the package`);
      notes.set(page, `slide ${page} is missing from the file`);
      continue;
    }
    const slideRels = await pkg.relationships(part);
    const slide = readSlide(root, { page, rels: slideRels, budget, warnings });
    if (slide.hidden) {
      hidden.push(page);
      notes.set(page, `slide ${page} is hidden in the presentation`);
    }
    if (slide.title !== null) {
      firstTitle ??= slide.title;
      blocks.push({ type: 'heading', text: slide.title, level: 1, page });
    }
    for (const item of slide.items) {
      if (item.type === 'imageRef') {
        const block = await images.toBlock(item.ref);
        if (block) blocks.push(block);
      } else if (item.type === 'diagram') {
        const items = await diagramText(pkg, item.part);
        for (const text of items) budget.addText(text);
        if (items.length > 0) blocks.push({ type: 'list', items, ordered: false, page });
      } else blocks.push(item);
    }
    const speakerNotes = await notesOf(pkg, slideRels);
    if (speakerNotes) {
      budget.addText(speakerNotes);
      blocks.push({ type: 'paragraph', text: NOTES_PREFIX + speakerNotes, page });
    }
  }
  if (blocks.length === 0)
    throw new ParseError('empty_document', 'the presentation has no text, table or picture');
  numberBlocks(blocks);
  const extra: Record<string, string | number> = { slides: slideParts.length };
  if (hidden.length > 0) extra.hiddenSlides = hidden.join(', ');
  return {
    format: '.pptx',
    sourceFile: baseName(ctx.fileName),
    metadata: buildMetadata({
      properties,
      fallbackTitle: firstTitle ?? titleFromFileName(ctx.fileName),
      numPages: slideParts.length,
      extra,
    }),
    pages: textPages(slideParts.length, notes),
    blocks,
    warnings,
  };
}

async function notesOf(pkg: OfficePackage, slideRels: ReadonlyMap<string, Relationship>): Promise<string> {
  const rel = findRel(slideRels, 'notesSlide');
  const root = rel ? await pkg.readXml(rel.target) : null;
  return root ? readNotes(root) : '';
}

/** SmartArt keeps its text in the diagram data part: each point (`dgm:pt`) has a text body `dgm:t`. */
async function diagramText(pkg: OfficePackage, part: string): Promise<string[]> {
  const root = await pkg.readXml(part);
  if (!root) return [];
  return descendants(root, 'pt').flatMap((point) =>
    textParagraphs(firstChild(point, 't')).map((p) => p.text),
  );
}
