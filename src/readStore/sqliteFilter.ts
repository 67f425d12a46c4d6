import { isOperatorCondition } from './filter.js';
import type { Condition, Filter, Scalar } from './readStore.js';
import { assertFieldPath } from './readStore.js';

/** A WHERE clause (without the keyword) and its parameters. */
export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/**
 * The JSON expression for a field. Paths are validated, then written literally (not bound) so the
 * expression matches the one in the collection's expression indexes and SQLite can use them.
 */
export function fieldExpression(path: string, column = 'doc'): string {
  assertFieldPath(path);
  return `json_extract(${column}, '$.${path}')`;
}

function typeExpression(path: string, column: string): string {
  return `json_type(${column}, '$.${path}')`;
}

/** Above this many values an `IN` list is one JSON parameter: SQLite takes at most 32,766 parameters. */
const BOUND_LIST_MAX = 256;

const placeholders = (count: number): string => Array<string>(count).fill('?').join(', ');

/**
 * The right-hand side of `IN` for `values`, its parameters added to `params`: one `?` each for a short
 * list; for a long one (a restricted user's visible documents, say: tens of thousands) a single JSON
 * array read by `json_each`, which no parameter limit stops and which keeps one statement shape.
 */
function listOf(values: readonly (string | number)[], params: unknown[]): string {
  if (values.length <= BOUND_LIST_MAX) {
    params.push(...values);
    return `(${placeholders(values.length)})`;
  }
  params.push(JSON.stringify(values));
  return '(SELECT value FROM json_each(?))';
}

/** Compiles a filter with MongoDB's semantics: null matches missing, ranges never cross types. */
export function compileFilter(filter: Filter | undefined, column = 'doc'): SqlFragment {
  const clauses: string[] = [];
  const params: unknown[] = [];
  for (const [path, condition] of Object.entries(filter ?? {})) {
    const value = fieldExpression(path, column);
    const type = typeExpression(path, column);
    const equals = (expected: Scalar, negate: boolean): void => {
      if (expected === null) {
        clauses.push(negate ? `${value} IS NOT NULL` : `${value} IS NULL`);
      } else if (typeof expected === 'boolean') {
        clauses.push(negate ? `${type} IS NOT ?` : `${type} = ?`);
        params.push(expected ? 'true' : 'false');
      } else {
        clauses.push(
          negate
            ? `${value} IS NOT ?`
            : `(${value} = ? AND ${type} ${typeof expected === 'string' ? "= 'text'" : "IN ('integer', 'real')"})`,
        );
        params.push(expected);
      }
    };
    // One `IN` list per type, so a list of thousands stays one shallow expression (an `OR` per
    // option nested a level each: SQLite refuses a tree deeper than 1,000).
    const within = (options: readonly Scalar[], negate: boolean): void => {
      if (options.length === 0) {
        clauses.push(negate ? '1' : '0');
        return;
      }
      const texts = options.filter((option): option is string => typeof option === 'string');
      const numbers = options.filter((option): option is number => typeof option === 'number');
      const booleans = options.filter((option): option is boolean => typeof option === 'boolean');
      const parts: string[] = [];
      if (texts.length > 0) {
        parts.push(`coalesce(${value} IN ${listOf(texts, params)} AND ${type} = 'text', 0)`);
      }
      if (numbers.length > 0) {
        parts.push(`coalesce(${value} IN ${listOf(numbers, params)} AND ${type} IN ('integer', 'real'), 0)`);
      }
      if (booleans.length > 0) {
        parts.push(`coalesce(${type} IN (${placeholders(booleans.length)}), 0)`);
        params.push(...booleans.map((option) => (option ? 'true' : 'false')));
      }
      if (options.includes(null)) parts.push(`${value} IS NULL`);
      clauses.push(negate ? `NOT (${parts.join(' OR ')})` : `(${parts.join(' OR ')})`);
    };
    const range = (operator: string, bound: string | number): void => {
      clauses.push(
        `(${value} ${operator} ? AND ${type} ${typeof bound === 'string' ? "= 'text'" : "IN ('integer', 'real')"})`,
      );
      params.push(bound);
    };

    if (!isOperatorCondition(condition)) {
      equals(condition, false);
      continue;
    }
    const c: Exclude<Condition, Scalar> = condition;
    if (c.$eq !== undefined) equals(c.$eq, false);
    if (c.$ne !== undefined) equals(c.$ne, true);
    if (c.$in !== undefined) within(c.$in, false);
    if (c.$nin !== undefined) within(c.$nin, true);
    if (c.$exists !== undefined) clauses.push(c.$exists ? `${type} IS NOT NULL` : `${type} IS NULL`);
    if (c.$gt !== undefined) range('>', c.$gt);
    if (c.$gte !== undefined) range('>=', c.$gte);
    if (c.$lt !== undefined) range('<', c.$lt);
    if (c.$lte !== undefined) range('<=', c.$lte);
  }
  return { sql: clauses.length > 0 ? clauses.join(' AND ') : '1', params };
}
