import type { Condition, Doc, Filter, Scalar } from './readStore.js';
import { UnsupportedQueryError, assertFieldPath } from './readStore.js';

/** Value at a dotted path; `undefined` when any step is missing. */
export function valueAt(doc: unknown, path: string): unknown {
  let current: unknown = doc;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const OPERATORS = new Set(['$eq', '$ne', '$in', '$nin', '$gt', '$gte', '$lt', '$lte', '$exists']);

export function isOperatorCondition(condition: Condition): condition is Exclude<Condition, Scalar> {
  return condition !== null && typeof condition === 'object';
}

/** Rejects anything outside the supported subset, so both adapters fail the same way. */
export function assertFilter(filter: Filter): void {
  for (const [path, condition] of Object.entries(filter)) {
    assertFieldPath(path);
    if (!isOperatorCondition(condition)) continue;
    for (const key of Object.keys(condition)) {
      if (!OPERATORS.has(key)) throw new UnsupportedQueryError(`unsupported operator ${key} on ${path}`);
    }
  }
}

/** Evaluates a filter in memory exactly as the stores do (used by caches that must agree with them). */
export function matchesFilter(doc: Doc, filter: Filter): boolean {
  return Object.entries(filter).every(([path, condition]) => matchesCondition(valueAt(doc, path), condition));
}

function sameScalar(value: unknown, expected: Scalar): boolean {
  if (expected === null) return value === null || value === undefined;
  return value === expected;
}

function matchesCondition(value: unknown, condition: Condition): boolean {
  if (!isOperatorCondition(condition)) return sameScalar(value, condition);
  const c = condition;
  if (c.$eq !== undefined && !sameScalar(value, c.$eq)) return false;
  if (c.$ne !== undefined && sameScalar(value, c.$ne)) return false;
  if (c.$in !== undefined && !c.$in.some((option) => sameScalar(value, option))) return false;
  if (c.$nin !== undefined && c.$nin.some((option) => sameScalar(value, option))) return false;
  if (c.$exists !== undefined && (value !== undefined) !== c.$exists) return false;
  const ordered = typeof value === 'number' || typeof value === 'string';
  const compare = (
    bound: string | number | undefined,
    test: (a: string | number, b: string | number) => boolean,
  ): boolean => bound === undefined || (ordered && typeof value === typeof bound && test(value, bound));
  return (
    compare(c.$gt, (a, b) => a > b) &&
    compare(c.$gte, (a, b) => a >= b) &&
    compare(c.$lt, (a, b) => a < b) &&
    compare(c.$lte, (a, b) => a <= b)
  );
}
