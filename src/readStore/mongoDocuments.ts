import type { Document } from 'mongodb';
import { assertFilter, isOperatorCondition } from './filter.js';
import type { Doc, Filter, FindQuery, Scalar } from './readStore.js';
import { UnsupportedQueryError, assertFieldPath } from './readStore.js';

/** Top-level field of a stored document that holds its search data; never returned. */
export const SEARCH_FIELD = '_search';

/** Wraps an array nested directly in an array (FerretDB refuses nested arrays). */
const ARRAY_MARK = '%a';
const RESERVED_TOP_LEVEL = new Set(['_id', SEARCH_FIELD]);

// NUL is meant: BSON keys cannot contain it.
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /[%.\u0000]/;
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE_ALL = /[%.\u0000]/g;

const hex = (char: string): string => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * Keys that MongoDB or FerretDB refuse or would misread (dots, a leading `$`, NUL) are escaped with
 * `%XX`, and `%` itself, so the encoding is reversible and never collides with a real key. Valid
 * field paths never contain an escaped character, so filters are unaffected.
 */
function escapeKey(key: string): string {
  const escaped = NEEDS_ESCAPE.test(key) ? key.replace(NEEDS_ESCAPE_ALL, hex) : key;
  return escaped.startsWith('$') ? hex(escaped) + escaped.slice(1) : escaped;
}

/** An already escaped top-level key, with the names the adapter uses itself escaped too. */
function protectReserved(key: string): string {
  return RESERVED_TOP_LEVEL.has(key) ? hex(key) + key.slice(1) : key;
}

function unescapeKey(key: string): string {
  return key.includes('%')
    ? key.replace(/%([0-9A-F]{2})/g, (_, code: string) => String.fromCharCode(parseInt(code, 16)))
    : key;
}

function reviveForStorage(_key: string, value: unknown): unknown {
  if (Array.isArray(value))
    return value.map((item: unknown) => (Array.isArray(item) ? { [ARRAY_MARK]: item } : item));
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (!keys.some((key) => NEEDS_ESCAPE.test(key) || key.startsWith('$'))) return value;
  return Object.fromEntries(keys.map((key) => [escapeKey(key), (value as Record<string, unknown>)[key]]));
}

/**
 * A value as it is stored. Going through JSON gives the same value the embedded store keeps (dates
 * become strings, `undefined` disappears), then keys and nested arrays are made storable.
 */
export function encodeValue(value: unknown): unknown {
  const json = JSON.stringify(value);
  return json === undefined ? undefined : (JSON.parse(json, reviveForStorage) as unknown);
}

function decodeValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeValue);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 1 && keys[0] === ARRAY_MARK && Array.isArray(record[ARRAY_MARK]))
    return decodeValue(record[ARRAY_MARK]);
  // fromEntries, not assignment: a `__proto__` key stays a plain property.
  return Object.fromEntries(keys.map((key) => [unescapeKey(key), decodeValue(record[key])]));
}

/** Stored top-level field name for a document key (`_id` and the search field are reserved). */
export function storedKey(key: string): string {
  return protectReserved(escapeKey(key));
}

/** The stored body of a document: everything but `id`, which becomes `_id` in the filter. */
export function encodeDoc(doc: Doc): Document {
  if (typeof doc.id !== 'string' || doc.id.length === 0)
    throw new UnsupportedQueryError('a document needs a string id');
  const encoded = encodeValue(doc) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(encoded)
      .filter(([key]) => key !== 'id')
      // Keys are escaped already (by encodeValue); only the reserved names remain to protect.
      .map(([key, value]) => [protectReserved(key), value]),
  );
}

/** A stored document back in the port's shape, without `_id` or internal fields. */
export function decodeDoc<T extends Doc>(stored: Document): T {
  const { _id: id, [SEARCH_FIELD]: _search, ...rest } = stored;
  return { id: String(id), ...(decodeValue(rest) as Record<string, unknown>) } as T;
}

/** The stored path for a port field path: `id` is `_id`; reserved top-level names are escaped. */
export function storedPath(path: string): string {
  assertFieldPath(path);
  if (path === 'id') return '_id';
  const dot = path.indexOf('.');
  const head = dot < 0 ? path : path.slice(0, dot);
  return protectReserved(head) + path.slice(head.length);
}

const isScalar = (value: unknown): value is Scalar =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

function operand(path: string, operator: string, value: unknown): unknown {
  const fail = (): never => {
    throw new UnsupportedQueryError(`invalid operand for ${operator} on ${path}`);
  };
  switch (operator) {
    case '$in':
    case '$nin':
      return Array.isArray(value) && value.every(isScalar) ? [...(value as Scalar[])] : fail();
    case '$exists':
      return typeof value === 'boolean' ? value : fail();
    case '$eq':
    case '$ne':
      return isScalar(value) ? value : fail();
    default:
      return typeof value === 'string' || typeof value === 'number' ? value : fail();
  }
}

/**
 * The filter as a MongoDB query. The subset's semantics are MongoDB's own (null matches missing,
 * `$ne`/`$nin` match missing, ranges are bracketed by type), so this is a checked copy.
 */
export function toMongoFilter(filter: Filter | undefined): Document {
  const query: Document = {};
  if (!filter) return query;
  assertFilter(filter);
  for (const [path, condition] of Object.entries(filter)) {
    const key = storedPath(path);
    if (!isOperatorCondition(condition)) {
      query[key] = isScalar(condition) ? condition : operand(path, '$eq', condition);
      continue;
    }
    const translated: Document = {};
    for (const [operator, value] of Object.entries(condition)) {
      if (value !== undefined) translated[operator] = operand(path, operator, value);
    }
    // An empty condition constrains nothing (as in filter.ts); `{ f: {} }` would mean "equals {}".
    if (Object.keys(translated).length > 0) query[key] = translated;
  }
  return query;
}

/** Sort keys in order, ending with `_id` so that skip and limit page deterministically. */
export function toMongoSort(sort: FindQuery['sort']): Record<string, 1 | -1> {
  const order: Record<string, 1 | -1> = {};
  for (const [path, direction] of sort ?? []) {
    if (direction !== 1 && direction !== -1) throw new UnsupportedQueryError(`invalid sort direction`);
    order[storedPath(path)] ??= direction;
  }
  order['_id'] ??= 1;
  return order;
}
