/**
 * One piece of text as pdf.js reports it, in page coordinates with the origin at the top left
 * (y grows downwards, page rotation applied).
 */
export interface TextRun {
  text: string;
  /** Left edge. */
  x: number;
  /** Baseline. */
  y: number;
  width: number;
  /** Font size in points (the vertical scale of the text matrix). */
  size: number;
  /** pdf.js font id; its real name (and so its weight) is known once the page's fonts are loaded. */
  fontId: string;
  rtl: boolean;
}
