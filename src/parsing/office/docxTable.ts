import type { Budget } from './budget.js';
import { flag } from './docxStyles.js';
import { buildGrid, hasText, type GridCell, type GridRow } from './tableGrid.js';
import { attr, childElements, firstChild, path, type XmlElement } from './xml.js';

/** A Word table as a rectangular grid of cell texts. */
export interface DocxTable {
  cells: string[][];
  /** More than one row, or the first row is marked to repeat as a header (`w:tblHeader`). */
  hasHeader: boolean;
  /** The table's alternative-text title (`w:tblCaption`). */
  caption: string | null;
}

/**
 * Reads `w:tbl` markup into a grid: rows and cells looked up through content-control and custom-XML
 * wrappers, `w:gridSpan` and `w:gridBefore` placed, vertical (`w:vMerge`) and horizontal
 * (`w:hMerge`) merges filled with the merged cell's text. `cellText` gives a cell's text (the body
 * walk reads its paragraphs); `null` for a table without any text.
 */
export function readDocxTable(
  tbl: XmlElement,
  cellText: (tc: XmlElement) => string,
  budget: Budget,
): DocxTable | null {
  const rows: GridRow[] = [];
  let headerRow = false;
  for (const tr of unwrap(tbl, 'tr')) {
    const trPr = firstChild(tr, 'trPr');
    if (rows.length === 0) headerRow = flag(firstChild(trPr, 'tblHeader')) ?? false;
    const cells: GridCell[] = unwrap(tr, 'tc').map((tc) => {
      const tcPr = firstChild(tc, 'tcPr');
      const vMerge = firstChild(tcPr, 'vMerge');
      const hMerge = attr(firstChild(tcPr, 'hMerge'), 'w:val');
      return {
        text: cellText(tc),
        colSpan: Number.parseInt(attr(firstChild(tcPr, 'gridSpan'), 'w:val') ?? '1', 10),
        mergedUp: vMerge !== undefined && attr(vMerge, 'w:val') !== 'restart',
        mergedLeft: hMerge !== undefined && hMerge !== 'restart',
      };
    });
    rows.push({
      skipBefore: Number.parseInt(attr(firstChild(trPr, 'gridBefore'), 'w:val') ?? '0', 10),
      cells,
    });
  }
  const cells = buildGrid(rows, budget);
  if (!hasText(cells)) return null;
  const caption = attr(path(tbl, 'tblPr', 'tblCaption'), 'w:val')?.trim() || null;
  return { cells, hasHeader: cells.length > 1 || headerRow, caption };
}

/** Children with a local name, looking through `w:sdt`/`w:customXml` wrappers (rows, cells). */
function unwrap(parent: XmlElement, local: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (const child of childElements(parent)) {
    if (child.local === local) found.push(child);
    else if (child.local === 'sdt') {
      const content = firstChild(child, 'sdtContent');
      if (content) for (const inner of unwrap(content, local)) found.push(inner);
    } else if (child.local === 'customXml') for (const inner of unwrap(child, local)) found.push(inner);
  }
  return found;
}
