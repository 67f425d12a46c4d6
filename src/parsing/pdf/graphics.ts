import { multiply, toMatrix, unitSquareBox, type Box, type Matrix, applyPoint } from './geometry.js';
import type { PdfjsModule } from './pdfjs.js';

/** A straight horizontal or vertical stroke (or thin filled bar) on the page: a table border candidate. */
export interface Ruling {
  horizontal: boolean;
  /** y of a horizontal ruling, x of a vertical one. */
  at: number;
  from: number;
  to: number;
}

/** Where an image XObject is painted. `objId` names it in `page.objs`/`page.commonObjs`; inline images carry their data. */
export interface ImagePlacement {
  objId: string | null;
  inline: unknown;
  box: Box;
}

export interface PageGraphics {
  images: ImagePlacement[];
  rulings: Ruling[];
}

interface OperatorList {
  fnArray: number[];
  argsArray: unknown[];
}

/** Bars thinner than this (pt) that are filled rather than stroked still count as rulings. */
const THIN = 2.5;
/** Rulings shorter than this (pt) are ignored (glyph-like marks, bullets, tick marks). */
const MIN_RULING = 6;

/**
 * Walks a page's operator list, tracking the current transformation matrix, and collects image
 * placements and (when `withRulings`) the straight lines that may be table borders — all in page
 * coordinates (top-left origin). `pageMatrix` is the viewport transform.
 */
export function readGraphics(
  ops: OperatorList,
  pageMatrix: Matrix,
  OPS: PdfjsModule['OPS'],
  withRulings: boolean,
): PageGraphics {
  const images: ImagePlacement[] = [];
  const rulings: Ruling[] = [];
  const stack: Matrix[] = [];
  let ctm = pageMatrix;
  const count = Math.min(ops.fnArray.length, ops.argsArray.length);
  for (let i = 0; i < count; i++) {
    const fn = ops.fnArray[i];
    const args = ops.argsArray[i];
    switch (fn) {
      case OPS.save:
      case OPS.beginGroup:
        stack.push(ctm);
        break;
      case OPS.restore:
      case OPS.endGroup:
      case OPS.paintFormXObjectEnd:
        ctm = stack.pop() ?? ctm;
        break;
      case OPS.transform: {
        const m = Array.isArray(args) ? toMatrix(args) : null;
        if (m) ctm = multiply(ctm, m);
        break;
      }
      case OPS.paintFormXObjectBegin: {
        stack.push(ctm);
        const m = Array.isArray(args) ? toMatrix(args[0]) : null;
        if (m) ctm = multiply(ctm, m);
        break;
      }
      case OPS.paintImageXObject:
        if (Array.isArray(args) && typeof args[0] === 'string') {
          images.push({ objId: args[0], inline: null, box: unitSquareBox(ctm) });
        }
        break;
      case OPS.paintInlineImageXObject:
        if (Array.isArray(args)) images.push({ objId: null, inline: args[0], box: unitSquareBox(ctm) });
        break;
      case OPS.constructPath:
        if (withRulings && Array.isArray(args)) collectRulings(args, ctm, OPS, rulings);
        break;
      default:
        break;
    }
  }
  return { images, rulings };
}

/** pdf.js 5 packs a path as `[paintOp, [Float32Array of DrawOPS], minMax]`. */
function collectRulings(args: unknown[], ctm: Matrix, OPS: PdfjsModule['OPS'], out: Ruling[]): void {
  const [paintOp, buffers] = args;
  const data: unknown = Array.isArray(buffers) ? buffers[0] : null;
  if (!(data instanceof Float32Array) || typeof paintOp !== 'number') return;
  const stroked = [
    OPS.stroke,
    OPS.closeStroke,
    OPS.fillStroke,
    OPS.eoFillStroke,
    OPS.closeFillStroke,
    OPS.closeEOFillStroke,
  ].includes(paintOp);
  const filled = paintOp === OPS.fill || paintOp === OPS.eoFill;
  if (!stroked && !filled) return;
  const points = pathPoints(data, ctm);
  for (const subpath of points) {
    if (stroked) {
      for (let k = 1; k < subpath.length; k++) {
        const a = subpath[k - 1];
        const b = subpath[k];
        if (a && b) addLine(a, b, out);
      }
    } else {
      addThinBar(subpath, out);
    }
  }
}

/** Subpaths as point lists (moveTo starts one, lineTo extends it, closePath returns to its start). */
function pathPoints(data: Float32Array, ctm: Matrix): Array<Array<[number, number]>> {
  const subpaths: Array<Array<[number, number]>> = [];
  let current: Array<[number, number]> = [];
  let k = 0;
  while (k < data.length) {
    const op = data[k++];
    if (op === 0 || op === 1) {
      const point = applyPoint(ctm, data[k] ?? 0, data[k + 1] ?? 0);
      k += 2;
      if (op === 0) {
        if (current.length > 0) subpaths.push(current);
        current = [point];
      } else {
        current.push(point);
      }
    } else if (op === 2) {
      // A curve is no ruling: keep only its end point so the subpath goes on from there.
      const point = applyPoint(ctm, data[k + 4] ?? 0, data[k + 5] ?? 0);
      k += 6;
      if (current.length > 0) subpaths.push(current);
      current = [point];
    } else if (op === 3) {
      k += 4;
    } else if (op === 4) {
      const start = current[0];
      if (start) current.push(start);
    } else {
      break;
    }
  }
  if (current.length > 0) subpaths.push(current);
  return subpaths;
}

function addLine(a: [number, number], b: [number, number], out: Ruling[]): void {
  const [ax, ay] = a;
  const [bx, by] = b;
  if (Math.abs(ay - by) <= 1 && Math.abs(ax - bx) >= MIN_RULING) {
    out.push({ horizontal: true, at: (ay + by) / 2, from: Math.min(ax, bx), to: Math.max(ax, bx) });
  } else if (Math.abs(ax - bx) <= 1 && Math.abs(ay - by) >= MIN_RULING) {
    out.push({ horizontal: false, at: (ax + bx) / 2, from: Math.min(ay, by), to: Math.max(ay, by) });
  }
}

/** A filled rectangle that is thin in one direction is drawn as a border line by many producers. */
function addThinBar(points: Array<[number, number]>, out: Ruling[]): void {
  if (points.length < 4) return;
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  const y0 = Math.min(...ys);
  const y1 = Math.max(...ys);
  const width = x1 - x0;
  const height = y1 - y0;
  if (height <= THIN && width >= MIN_RULING)
    out.push({ horizontal: true, at: (y0 + y1) / 2, from: x0, to: x1 });
  else if (width <= THIN && height >= MIN_RULING)
    out.push({ horizontal: false, at: (x0 + x1) / 2, from: y0, to: y1 });
}
