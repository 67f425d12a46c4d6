import { attr, childElements, firstChild, type XmlElement } from './xml.js';

/** How a numeric cell should read, from its number format. */
export type ValueKind = 'number' | 'percent' | 'date' | 'time' | 'datetime';

/** Built-in number formats (ECMA-376 §18.8.30) that are not plain numbers. */
const BUILT_IN: Record<number, ValueKind> = {
  9: 'percent',
  10: 'percent',
  14: 'date',
  15: 'date',
  16: 'date',
  17: 'date',
  18: 'time',
  19: 'time',
  20: 'time',
  21: 'time',
  22: 'datetime',
  45: 'time',
  47: 'time',
};

/**
 * Reads `xl/styles.xml` into the value kind of each cell format (`cellXfs` index → kind), so a cell's
 * `s` attribute says whether its number is a date, a time, a percentage or a plain number.
 */
export function readCellFormats(root: XmlElement | null): ValueKind[] {
  if (!root) return [];
  const custom = new Map<number, string>();
  for (const numFmt of childElements(firstChild(root, 'numFmts') ?? root, 'numFmt')) {
    const id = Number.parseInt(attr(numFmt, 'numFmtId') ?? '', 10);
    const code = attr(numFmt, 'formatCode');
    if (Number.isInteger(id) && code !== undefined) custom.set(id, code);
  }
  return childElements(firstChild(root, 'cellXfs') ?? root, 'xf').map((xf) => {
    const id = Number.parseInt(attr(xf, 'numFmtId') ?? '0', 10);
    const code = custom.get(id);
    if (code !== undefined) return classifyFormatCode(code);
    return BUILT_IN[id] ?? 'number';
  });
}

/**
 * Classifies a custom format code by its first section: quoted text, escapes, fills and bracketed
 * colours/locales are ignored; elapsed-time codes (`[h]:mm`) are durations, so plain numbers.
 */
export function classifyFormatCode(code: string): ValueKind {
  let section = code
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/[_*]./g, '');
  section = section.split(';')[0] ?? '';
  if (/\[(?:h+|m+|s+)\]/i.test(section)) return 'number';
  section = section.replace(/\[[^\]]*\]/g, '').replace(/general/gi, '');
  const hasTime = /[hs]/i.test(section) || /AM\/PM|A\/P/i.test(section);
  const hasDate = /[yd]/i.test(section) || (/m/i.test(section) && !hasTime);
  if (hasDate && hasTime) return 'datetime';
  if (hasDate) return 'date';
  if (hasTime) return 'time';
  return section.includes('%') ? 'percent' : 'number';
}

const DAY_MS = 86_400_000;
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/** Renders a cached numeric value: ISO 8601 for dates and times, `n%` for percentages, else the number. */
export function renderNumber(raw: string, kind: ValueKind, date1904: boolean): string {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) return raw.trim();
  switch (kind) {
    case 'percent':
      return `${formatNumber(value * 100)}%`;
    case 'date':
    case 'time':
    case 'datetime':
      return renderSerial(value, kind, date1904) ?? formatNumber(value);
    default:
      return formatNumber(value);
  }
}

/** At most 15 significant digits, as spreadsheets display them (0.1+0.2 reads 0.3). */
export function formatNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  return String(Number(value.toPrecision(15)));
}

function renderSerial(serial: number, kind: ValueKind, date1904: boolean): string | null {
  if (serial < 0 || serial > 2_958_465) return null; // before the epoch or after 9999-12-31
  let days = Math.floor(serial);
  let seconds = Math.round((serial - days) * 86_400);
  if (seconds >= 86_400) {
    days += 1;
    seconds -= 86_400;
  }
  const time = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60]
    .map((part) => String(part).padStart(2, '0'))
    .join(':');
  if (kind === 'time' && days === 0) return time;
  // Serials below 60 predate the 1900-02-29 that the 1900 date system wrongly counts.
  const epoch = date1904 ? EPOCH_1904 : days < 60 ? EPOCH_1900 + DAY_MS : EPOCH_1900;
  const date = new Date(epoch + days * DAY_MS).toISOString().slice(0, 10);
  return kind === 'date' ? date : `${date}T${time}`;
}

/** `t="d"` cells hold ISO 8601 text already; midnight times are dropped like date-only values. */
export function renderIsoDate(raw: string): string {
  const value = raw.trim();
  return value.replace(/T00:00(?::00(?:\.0+)?)?Z?$/, '');
}
