import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Middleware } from 'koa';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface OpenApiResponse {
  content?: Record<string, { schema?: unknown }>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, OpenApiResponse> }>>;
}

interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, OpenApiResponse>;
}

/** A response that does not match what `/openapi.json` declares for its route and status. */
export interface ContractViolation {
  request: string;
  status: number;
  problem: string;
}

/** Violations seen since the last `takeViolations`, across every test app. */
const violations: ContractViolation[] = [];

export function takeViolations(): ContractViolation[] {
  return violations.splice(0);
}

/**
 * Checks every response of the app against the OpenAPI document it publishes: the status must be
 * declared for the operation, and a JSON body must match the declared schema. Streams are left
 * alone. What fails is recorded, and the root hook in `responseContractHook.ts` fails the test.
 */
export function responseContract(document: OpenApiDocument): Middleware {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));
  const validators = new WeakMap<object, ValidateFunction>();
  const operations: Operation[] = Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      responses: operation.responses,
    })),
  );

  const schemaCheck = (schema: object): ValidateFunction => {
    let check = validators.get(schema);
    if (!check) {
      check = ajv.compile(schema);
      validators.set(schema, check);
    }
    return check;
  };

  return async (ctx, next) => {
    await next();
    if (!ctx.writable) return; // The connection is gone: no response reaches anyone.
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    // A fixed path belongs to its fixed routes, for every method (see mountRoutes).
    const onPath = operations.filter((op) => op.pattern.test(ctx.path));
    const fixed = onPath.filter((op) => !op.template.includes('{'));
    const operation = (fixed.length > 0 ? fixed : onPath).find((op) => op.method === method);
    if (!operation) return; // Unknown routes: 404/405 in the error shape, checked by their own tests.
    const request = `${ctx.method} ${ctx.path}`;
    const declared = operation.responses[String(ctx.status)];
    if (!declared) {
      violations.push({ request, status: ctx.status, problem: `status ${ctx.status} is not declared` });
      return;
    }
    const type = ctx.response.type;
    if (type !== 'application/json') return;
    const schema = declared.content?.['application/json']?.schema;
    if (!schema || typeof schema !== 'object') {
      violations.push({ request, status: ctx.status, problem: 'a JSON body where none is declared' });
      return;
    }
    const check = schemaCheck(schema);
    if (!check(JSON.parse(JSON.stringify(ctx.body)) as unknown)) {
      const problem = (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
      violations.push({ request, status: ctx.status, problem });
    }
  };
}
