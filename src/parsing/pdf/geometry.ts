/** A PDF affine matrix [a, b, c, d, e, f]. */
export type Matrix = [number, number, number, number, number, number];

/** An axis-aligned box in page coordinates (top-left origin, y down). */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** `outer × inner`: first apply `inner`, then `outer` (pdf.js `Util.transform` order). */
export function multiply(outer: Matrix, inner: Matrix): Matrix {
  return [
    outer[0] * inner[0] + outer[2] * inner[1],
    outer[1] * inner[0] + outer[3] * inner[1],
    outer[0] * inner[2] + outer[2] * inner[3],
    outer[1] * inner[2] + outer[3] * inner[3],
    outer[0] * inner[4] + outer[2] * inner[5] + outer[4],
    outer[1] * inner[4] + outer[3] * inner[5] + outer[5],
  ];
}

export function applyPoint(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** The box covered by the unit square under `m` (where an image XObject is painted). */
export function unitSquareBox(m: Matrix): Box {
  const corners = [applyPoint(m, 0, 0), applyPoint(m, 1, 0), applyPoint(m, 0, 1), applyPoint(m, 1, 1)];
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

export function boxArea(box: Box): number {
  return Math.max(0, box.x1 - box.x0) * Math.max(0, box.y1 - box.y0);
}

/** The part of `box` inside `clip`. */
export function clipBox(box: Box, clip: Box): Box {
  return {
    x0: Math.max(box.x0, clip.x0),
    y0: Math.max(box.y0, clip.y0),
    x1: Math.min(box.x1, clip.x1),
    y1: Math.min(box.y1, clip.y1),
  };
}

export function toMatrix(value: unknown): Matrix | null {
  if (!isNumberList(value) || value.length !== 6) return null;
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = value;
  return [a, b, c, d, e, f];
}

function isNumberList(value: unknown): value is ArrayLike<number> & Iterable<number> {
  if (!(Array.isArray(value) || ArrayBuffer.isView(value))) return false;
  return Array.from(value as ArrayLike<unknown>).every((item) => typeof item === 'number');
}

/** Adds `value` to the list kept under `key` (creating it), without copying the list. */
export function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
