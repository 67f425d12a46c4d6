import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { RuleViolationError } from '../domain/shared/index.js';

/** One invalid field: a dotted path from the value's root (e.g. `answer.2`) and what is wrong. */
export interface FieldIssue {
  field: string;
  message: string;
}

/**
 * Input that breaks a schema. A `RuleViolationError` (422 over HTTP) that also lists each invalid
 * field, so a route can name them and the CLI can print them.
 */
export class ValidationFailedError extends RuleViolationError {
  constructor(
    code: string,
    message: string,
    readonly issues: readonly FieldIssue[],
  ) {
    super(code, message, { issues });
  }
}

/** Strict checking: JSON types as given, no coercion, every error reported. */
export function createValidatorFactory() {
  const ajv = new Ajv({ coerceTypes: false, allErrors: true, strict: false });
  return (schema: Record<string, unknown>): ValidateFunction => ajv.compile(schema);
}

/** ajv's errors as field issues under `root` (the name the client knows the value by). */
export function issuesOf(root: string, errors: ErrorObject[] | null | undefined): FieldIssue[] {
  return (errors ?? []).map((error) => {
    const path = [root, ...error.instancePath.split('/').filter(Boolean)];
    if (error.keyword === 'required') {
      path.push(String((error.params as { missingProperty: string }).missingProperty));
    }
    if (error.keyword === 'additionalProperties') {
      path.push(String((error.params as { additionalProperty: string }).additionalProperty));
    }
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
    const message =
      error.keyword === 'required'
        ? 'is required'
        : error.keyword === 'enum' && allowed
          ? `must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`
          : (error.message ?? 'is invalid');
    return { field: path.join('.'), message };
  });
}

export const describeIssues = (issues: readonly FieldIssue[]): string =>
  issues.map((issue) => `${issue.field} ${issue.message}`).join('; ');
