import type { Block } from '../model.js';
import type { Budget } from './budget.js';
import { tidyText } from './budget.js';
import { altTextOf, type ImageRef } from './officeImages.js';
import type { Relationship } from './officePackage.js';
import { buildGrid, hasText, type GridRow } from './tableGrid.js';
import { attr, childElements, firstChild, ownText, path, type XmlElement } from './xml.js';

/** Slide content in reading order; pictures and SmartArt still need their parts read. */
export type SlideItem =
  Block | { type: 'imageRef'; ref: ImageRef } | { type: 'diagram'; part: string; page: number };

export interface SlideContent {
  title: string | null;
  items: SlideItem[];
  hidden: boolean;
}

interface SlideEnv {
  page: number;
  rels: ReadonlyMap<string, Relationship>;
  budget: Budget;
  warnings: string[];
}

/** Placeholders that repeat on every slide (date, footer, number) or only frame the notes page. */
const BOILERPLATE = new Set(['dt', 'ftr', 'sldNum', 'hdr', 'sldImg']);
const TITLES = new Set(['title', 'ctrTitle']);
/** Placeholders whose paragraphs show bullets unless a paragraph says `a:buNone`. */
const BULLETED = new Set(['body', 'obj']);

type Bullet = 'none' | 'bullet' | 'number' | 'inherit';

interface TextParagraph {
  text: string;
  level: number;
  bullet: Bullet;
}

/**
 * Reads one slide's shape tree in z-order (groups and `mc:AlternateContent` included). The first
 * title placeholder is the slide title; bulleted or numbered paragraphs (explicitly, or inherited in
 * a body placeholder) become lists; `a:tbl` frames become tables; `p:pic` pictures become images.
 */
export function readSlide(root: XmlElement, env: SlideEnv): SlideContent {
  const items: SlideItem[] = [];
  let title: string | null = null;

  const shapes = (container: XmlElement): void => {
    for (const child of childElements(container)) {
      if (child.local === 'sp') shape(child);
      else if (child.local === 'grpSp') shapes(child);
      else if (child.local === 'graphicFrame') frame(child);
      else if (child.local === 'pic') picture(child);
      else if (child.local === 'AlternateContent') {
        const choice = firstChild(child, 'Choice') ?? firstChild(child, 'Fallback');
        if (choice) shapes(choice);
      }
    }
  };

  const shape = (sp: XmlElement): void => {
    const ph = path(sp, 'nvSpPr', 'nvPr', 'ph');
    const phType = ph ? (attr(ph, 'type') ?? 'body') : null;
    if (phType !== null && BOILERPLATE.has(phType)) return;
    const paragraphs = textParagraphs(firstChild(sp, 'txBody'));
    if (paragraphs.length === 0) return;
    for (const paragraph of paragraphs) env.budget.addText(paragraph.text);
    if (phType !== null && TITLES.has(phType) && title === null) {
      title = paragraphs.map((p) => p.text.replace(/\n/g, ' ')).join(' ');
      return;
    }
    const inherited: Bullet = phType !== null && BULLETED.has(phType) ? 'bullet' : 'none';
    let list: TextParagraph[] = [];
    const flush = (): void => {
      const first = list[0];
      if (first) {
        const base = list.reduce((lowest, p) => Math.min(lowest, p.level), first.level);
        items.push({
          type: 'list',
          items: list.map((p) => '  '.repeat(p.level - base) + p.text),
          ordered: first.bullet === 'number',
          page: env.page,
        });
      }
      list = [];
    };
    for (const paragraph of paragraphs) {
      const bullet = paragraph.bullet === 'inherit' ? inherited : paragraph.bullet;
      if (bullet === 'none') {
        flush();
        items.push({ type: 'paragraph', text: paragraph.text, page: env.page });
      } else list.push({ ...paragraph, bullet });
    }
    flush();
  };

  const frame = (graphicFrame: XmlElement): void => {
    const data = path(graphicFrame, 'graphic', 'graphicData');
    const uri = attr(data, 'uri') ?? '';
    const tbl = firstChild(data, 'tbl');
    if (tbl) {
      const cells = tableCells(tbl, env.budget);
      if (hasText(cells)) {
        const table = { index: 0, pageNumber: env.page, cells, hasHeader: cells.length > 1, caption: null };
        items.push({ type: 'table', table, page: env.page });
      }
    } else if (uri.endsWith('/chart')) {
      env.warnings.push(`a chart on slide ${env.page} was not extracted`);
    } else if (uri.endsWith('/diagram')) {
      const rel = env.rels.get(attr(firstChild(data, 'relIds'), 'r:dm') ?? '');
      if (rel && !rel.external) items.push({ type: 'diagram', part: rel.target, page: env.page });
    }
  };

  const picture = (pic: XmlElement): void => {
    const relId = attr(path(pic, 'blipFill', 'blip'), 'r:embed');
    const rel = relId === undefined ? undefined : env.rels.get(relId);
    if (!rel || rel.external) return;
    const cNvPr = path(pic, 'nvPicPr', 'cNvPr');
    const altText = altTextOf(attr(cNvPr, 'descr'), attr(cNvPr, 'title'));
    items.push({ type: 'imageRef', ref: { part: rel.target, altText, page: env.page } });
  };

  const tree = path(root, 'cSld', 'spTree');
  if (tree) shapes(tree);
  const show = attr(root, 'show');
  return { title, items, hidden: show === '0' || show === 'false' };
}

/** Text of the speaker notes: every text shape of the notes slide except its slide image and boilerplate. */
export function readNotes(root: XmlElement): string {
  const lines: string[] = [];
  const walk = (container: XmlElement): void => {
    for (const child of childElements(container)) {
      if (child.local === 'grpSp') walk(child);
      if (child.local !== 'sp') continue;
      const phType = attr(path(child, 'nvSpPr', 'nvPr', 'ph'), 'type');
      if (phType !== undefined && BOILERPLATE.has(phType)) continue;
      for (const paragraph of textParagraphs(firstChild(child, 'txBody'))) lines.push(paragraph.text);
    }
  };
  const tree = path(root, 'cSld', 'spTree');
  if (tree) walk(tree);
  return lines.join('\n');
}

/** Paragraphs of a DrawingML text body (`p:txBody`, `a:txBody`), blank ones dropped. */
export function textParagraphs(txBody: XmlElement | undefined): TextParagraph[] {
  const paragraphs: TextParagraph[] = [];
  for (const p of txBody ? childElements(txBody, 'p') : []) {
    let text = '';
    for (const child of childElements(p)) {
      if (child.local === 'r' || child.local === 'fld') text += ownText(firstChild(child, 't') ?? child);
      else if (child.local === 'br') text += '\n';
    }
    const tidy = tidyText(text);
    if (!tidy) continue;
    const pPr = firstChild(p, 'pPr');
    const level = Number.parseInt(attr(pPr, 'lvl') ?? '0', 10);
    paragraphs.push({
      text: tidy,
      level: Number.isInteger(level) && level >= 0 && level <= 8 ? level : 0,
      bullet: bulletOf(pPr),
    });
  }
  return paragraphs;
}

function bulletOf(pPr: XmlElement | undefined): Bullet {
  if (firstChild(pPr, 'buNone')) return 'none';
  if (firstChild(pPr, 'buAutoNum')) return 'number';
  if (firstChild(pPr, 'buChar') || firstChild(pPr, 'buBlip')) return 'bullet';
  return 'inherit';
}

/**
 * `a:tbl` cells. PowerPoint writes the cells a merge covers explicitly (`hMerge`/`vMerge`), so the
 * origin's `gridSpan`/`rowSpan` must not be expanded again: each `a:tc` is one grid column.
 */
function tableCells(tbl: XmlElement, budget: Budget): string[][] {
  const rows: GridRow[] = childElements(tbl, 'tr').map((tr) => ({
    skipBefore: 0,
    cells: childElements(tr, 'tc').map((tc) => ({
      text: textParagraphs(firstChild(tc, 'txBody'))
        .map((p) => p.text)
        .join('\n'),
      colSpan: 1,
      mergedUp: isTrue(attr(tc, 'vMerge')),
      mergedLeft: isTrue(attr(tc, 'hMerge')),
    })),
  }));
  return buildGrid(rows, budget);
}

function isTrue(value: string | undefined): boolean {
  return value === '1' || value === 'true';
}
