import { ParseError } from '../errors.js';

/** Shape limits checked while reading, so a hostile file is refused after a few kilobytes, not at the end. */
export interface CsvCaps {
  /** Records (empty lines excluded). */
  maxRows: number;
  /** Fields in one record. */
  maxRowFields: number;
  /** Characters in one field (quotes and blanks around it excluded). */
  maxFieldChars: number;
}

export const UNCAPPED: CsvCaps = {
  maxRows: Number.POSITIVE_INFINITY,
  maxRowFields: Number.POSITIVE_INFINITY,
  maxFieldChars: Number.POSITIVE_INFINITY,
};

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;

const isBlank = (code: number): boolean => code === SPACE || code === TAB;

/**
 * Reads delimited text one record at a time. The rules are the relaxed ones spreadsheet exports
 * need: blanks around fields are trimmed; a field starting with `"` is quoted and may hold
 * delimiters, line breaks and doubled quotes (`""`), and ends at a quote followed by blanks and a
 * delimiter, a line end or the end of the text — any other quote inside it is kept as a character;
 * quotes inside an unquoted field are ordinary characters; lines are ended by LF, CRLF or CR, and
 * empty lines are skipped.
 *
 * Every cap is checked as the characters go by: a 50 MB file on one line fails once its row has one
 * field too many, without the row (or the file) being held as fields. Over a cap: `too_large`,
 * naming the setting; a quote never closed: `corrupt_document`.
 */
export function* readCsvRecords(
  text: string,
  delimiter: string,
  caps: CsvCaps,
  label: string,
): Generator<string[]> {
  const separator = delimiter.charCodeAt(0);
  const length = text.length;
  let position = 0;
  let line = 1;
  let rows = 0;
  let record: string[] = [];

  const tooLarge = (what: string, limit: number, setting: string): ParseError =>
    new ParseError('too_large', `${label}: ${what}; the limit is ${limit} (${setting})`);
  const fieldTooLong = (onLine: number): ParseError =>
    tooLarge(
      `a field on line ${onLine} is longer than ${caps.maxFieldChars} characters`,
      caps.maxFieldChars,
      'PARSE_MAX_FIELD_CHARS',
    );
  const addField = (field: string): void => {
    record.push(field);
    if (record.length > caps.maxRowFields) {
      throw tooLarge(
        `line ${line} has more than ${caps.maxRowFields} fields`,
        caps.maxRowFields,
        'PARSE_MAX_ROW_FIELDS',
      );
    }
  };

  while (position < length) {
    const start = position;
    while (position < length && isBlank(text.charCodeAt(position))) position += 1;
    let field: string;
    if (text.charCodeAt(position) === QUOTE) {
      const opened = line;
      let pieces = '';
      let from = position + 1;
      let closed = false;
      for (let at = from; at < length; at += 1) {
        const code = text.charCodeAt(at);
        if (code === LF) line += 1;
        if (pieces.length + (at - from) > caps.maxFieldChars) throw fieldTooLong(opened);
        if (code !== QUOTE) continue;
        if (text.charCodeAt(at + 1) === QUOTE) {
          pieces += text.slice(from, at + 1);
          from = at + 2;
          at += 1;
        } else {
          let after = at + 1;
          while (after < length && isBlank(text.charCodeAt(after))) after += 1;
          const next = text.charCodeAt(after);
          if (after >= length || next === separator || next === LF || next === CR) {
            pieces += text.slice(from, at);
            position = after;
            closed = true;
            break;
          }
        }
      }
      if (!closed) {
        throw new ParseError(
          'corrupt_document',
          `${label}: the quoted field opened on line ${opened} never closes`,
        );
      }
      field = pieces;
    } else {
      let end = position;
      for (; end < length; end += 1) {
        const code = text.charCodeAt(end);
        if (code === separator || code === LF || code === CR) break;
        if (end - position >= caps.maxFieldChars) throw fieldTooLong(line);
      }
      let last = end;
      while (last > position && isBlank(text.charCodeAt(last - 1))) last -= 1;
      field = text.slice(position, last);
      position = end;
    }
    if (field.length > caps.maxFieldChars) throw fieldTooLong(line);
    addField(field);
    const code = text.charCodeAt(position);
    if (code === separator) {
      position += 1;
      if (position < length) continue;
      // A delimiter at the very end still opens one last, empty field.
      addField('');
    }
    // A line end or the end of the text closes the record; a line with no characters is no record.
    const emptyLine = record.length === 1 && field === '' && position === start;
    if (code === CR && text.charCodeAt(position + 1) === LF) position += 1;
    if (position < length) position += 1;
    line += 1;
    if (!emptyLine) {
      rows += 1;
      if (rows > caps.maxRows) {
        throw tooLarge(`more than ${caps.maxRows} rows`, caps.maxRows, 'PARSE_MAX_ROWS');
      }
      yield record;
    }
    record = [];
  }
}
