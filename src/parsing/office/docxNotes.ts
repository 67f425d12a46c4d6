import { findRel, type OfficePackage, type Relationship } from './officePackage.js';
import { attr, childElements, type XmlElement } from './xml.js';

/** The notes parts: `w:footnote` / `w:endnote` elements by `w:id`. */
export interface DocxNotes {
  footnotes: ReadonlyMap<string, XmlElement>;
  endnotes: ReadonlyMap<string, XmlElement>;
}

/** Reads the footnotes and endnotes parts the main part's relationships name (empty when absent). */
export async function readDocxNotes(
  pkg: OfficePackage,
  rels: ReadonlyMap<string, Relationship>,
): Promise<DocxNotes> {
  return {
    footnotes: await readNotes(pkg, rels, 'footnotes'),
    endnotes: await readNotes(pkg, rels, 'endnotes'),
  };
}

/** `w:footnote` / `w:endnote` elements by id, without Word's separator notes. */
async function readNotes(
  pkg: OfficePackage,
  rels: ReadonlyMap<string, Relationship>,
  type: 'footnotes' | 'endnotes',
): Promise<Map<string, XmlElement>> {
  const part = findRel(rels, type)?.target;
  const root = part ? await pkg.readXml(part) : null;
  const notes = new Map<string, XmlElement>();
  for (const note of root ? childElements(root) : []) {
    const id = attr(note, 'w:id');
    const kind = attr(note, 'w:type');
    if (id !== undefined && (kind === undefined || kind === 'normal')) notes.set(id, note);
  }
  return notes;
}

/** Lower-case Roman numerals, as Word numbers endnotes by default (i, ii, iii…). */
export function roman(value: number): string {
  const numerals: [number, string][] = [
    [1000, 'm'],
    [900, 'cm'],
    [500, 'd'],
    [400, 'cd'],
    [100, 'c'],
    [90, 'xc'],
    [50, 'l'],
    [40, 'xl'],
    [10, 'x'],
    [9, 'ix'],
    [5, 'v'],
    [4, 'iv'],
    [1, 'i'],
  ];
  let rest = value;
  let text = '';
  for (const [amount, numeral] of numerals) {
    while (rest >= amount) {
      text += numeral;
      rest -= amount;
    }
  }
  return text;
}
