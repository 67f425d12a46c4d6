import type { ParseLimits } from '../context.js';
import type { Block } from '../model.js';
import type { Budget } from './budget.js';
import type { OdfStyles } from './odfStyles.js';
import type { ImageRef } from './officeImages.js';
import type { XmlElement } from './xml.js';

/** A block, or a picture whose bytes are read afterwards. */
export type OdfItem = Block | { type: 'imageRef'; ref: ImageRef };

export interface OdfTextEnv {
  styles: OdfStyles;
  budget: Budget;
  warnings: string[];
  limits: Pick<ParseLimits, 'maxRows' | 'maxRowFields' | 'maxFieldChars' | 'maxCells'>;
}

export interface OdfTextWalker {
  /** Walks the block-level children of a container (`office:text`, a text box, a cell, a slide). */
  children(container: XmlElement, out: OdfItem[]): void;
  /** Walks one block-level element. */
  element(element: XmlElement, out: OdfItem[]): void;
  /** The text of a paragraph-like element (spans, spaces, tabs, line breaks, links; no notes). */
  paragraphText(element: XmlElement): string;
  /** Endnotes met so far, as `[label] text` paragraphs, for the end of the document. */
  endnotes(): Block[];
  page: number;
}
