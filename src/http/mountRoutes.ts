import type Router from '@koa/router';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Context, Middleware } from 'koa';
import { koaBody } from 'koa-body';
import type { Caller } from '../commands/context.js';
import type { Logger } from '../log.js';
import type { RateLimitClass } from '../rateLimit/rateLimiter.js';
import { HttpError, type ValidationIssue } from './httpError.js';
import { multipartBody, multipartOf, type MultipartLimits } from './multipart.js';
import type { Route, RouteResponse, Schema } from './route.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface MountOptions {
  maxJsonBytes: number;
  /** Limits of multipart bodies; `maxFiles` is the most any route takes (routes check their own). */
  multipart: MultipartLimits;
  /** How routes with `readAfterWrite` wait for their projections; without it they do not wait. */
  readYourWrites?: ReadYourWrites;
  /** The middleware that counts a request of routes declaring `rateLimit`; without it they are not limited. */
  rateLimit?: (kind: RateLimitClass) => Middleware;
}

export interface ReadYourWrites {
  /**
   * Waits until `projections` have applied the log up to `position`, at most `timeoutMs`; resolves
   * with the names of those that had not (empty when all had).
   */
  behind(
    position: number,
    options: { projections: readonly string[]; timeoutMs: number },
  ): Promise<readonly string[]>;
  timeoutMs: number;
}

/** Set on a write's response when its projections had not caught up in time: the next read may be stale. */
export const STALE_READ_HEADER = 'X-Read-Your-Writes';

/** Waits for the route's projections to reach the response's position; says so when it gave up. */
async function awaitProjections(
  route: Route,
  position: number | undefined,
  readYourWrites: ReadYourWrites | undefined,
): Promise<Record<string, string>> {
  if (position === undefined || !route.readAfterWrite?.length || !readYourWrites) return {};
  const behind = await readYourWrites.behind(position, {
    projections: route.readAfterWrite,
    timeoutMs: readYourWrites.timeoutMs,
  });
  return behind.length === 0 ? {} : { [STALE_READ_HEADER]: `timeout; projections=${behind.join(',')}` };
}

/**
 * Runs the handler; a failure that recorded something (it carries a position) is answered once the
 * route's projections hold it, as a success would be, so the next read shows what the error says.
 */
async function handleRecordingFailures(
  route: Route,
  readYourWrites: ReadYourWrites | undefined,
  request: Parameters<Route['handle']>[0],
): Promise<RouteResponse | void> {
  try {
    return await route.handle(request);
  } catch (error) {
    if (error instanceof HttpError && error.position !== undefined)
      Object.assign(error.headers, await awaitProjections(route, error.position, readYourWrites));
    throw error;
  }
}

/** What the request-context middleware leaves on `ctx.state`. */
export interface RequestState {
  caller: Caller;
  log: Logger;
  signal: AbortSignal;
  correlationId: string;
  /** The matched route's method and path template (`GET /api/v1/tasks/{task_id}`), once routed. */
  route?: string;
}

// Strings from URLs and forms are coerced to the declared types; JSON bodies must be typed right.
const lenient = addFormats(
  new Ajv({
    coerceTypes: 'array',
    useDefaults: true,
    removeAdditional: true,
    allErrors: true,
    strict: false,
  }),
);
const strictTypes = addFormats(
  new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: true, allErrors: true, strict: false }),
);

function issuesOf(
  errors: ErrorObject[] | null | undefined,
  location: ValidationIssue['location'],
): ValidationIssue[] {
  // A key refused by `propertyNames` fails twice (its enum, then the key as a whole): once is enough.
  const named = (errors ?? []).filter(
    (error) => !(error.keyword === 'propertyNames' && (errors ?? []).some((other) => other.propertyName)),
  );
  return named.map((error) => {
    const path = error.instancePath.split('/').filter(Boolean);
    // An unknown key of an object whose keys are listed (filters, deletion criteria): name the key.
    if (error.propertyName !== undefined) {
      path.push(error.propertyName);
      const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
      return {
        location,
        field: path.join('.'),
        message: `is not a known key${allowed ? `; allowed: ${allowed.join(', ')}` : ''}`,
      };
    }
    if (error.keyword === 'required')
      path.push(String((error.params as { missingProperty: string }).missingProperty));
    if (error.keyword === 'additionalProperties')
      path.push(String((error.params as { additionalProperty: string }).additionalProperty));
    const field = path.join('.');
    const message = error.keyword === 'required' ? 'is required' : (error.message ?? 'is invalid');
    const allowed =
      error.keyword === 'enum'
        ? `: ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
        : '';
    return { location, field, message: `${message}${allowed}` };
  });
}

/** Schemas not compiled yet, for `warmValidators`. */
const uncompiled = new Set<() => void>();

/**
 * Compiles the route schemas no request has needed yet, one per turn of the event loop so requests
 * are not held up: called once the server listens, so that the first request of a route does not pay
 * for its compilation (5–15 ms each) and start-up does not either.
 */
export async function warmValidators(): Promise<void> {
  for (const compile of [...uncompiled]) {
    await new Promise((resolve) => setImmediate(resolve));
    compile();
  }
}

/**
 * A check that returns the (coerced, defaulted) value or throws a 422 naming each invalid field;
 * no schema: the value is `{}`. The schema is compiled once, on the route's first request or by
 * `warmValidators` after start-up, whichever comes first: compiling every route's schemas took a
 * tenth of a second of each start-up.
 */
function validator(
  ajv: Ajv,
  schema: Schema | undefined,
  location: ValidationIssue['location'],
): (value: unknown) => unknown {
  if (!schema) return () => ({});
  let check: ValidateFunction | null = null;
  const compile = (): ValidateFunction => {
    uncompiled.delete(compile);
    check ??= ajv.compile(schema);
    return check;
  };
  uncompiled.add(compile);
  return (value) => {
    const valid = check ?? compile();
    if (valid(value)) return value;
    const issues = issuesOf(valid.errors, location);
    const summary = issues
      .map((issue) => `${location}${issue.field ? `.${issue.field}` : ''} ${issue.message}`)
      .join('; ');
    throw new HttpError(422, 'validation_error', summary, issues);
  };
}

/** A plain, mutable copy of the query (ajv coerces and fills defaults in place). */
function plainQuery(ctx: Context): Record<string, unknown> {
  return Object.fromEntries(Object.entries(ctx.query));
}

function hasBody(ctx: Context): boolean {
  const length = ctx.request.length;
  return (length !== undefined && length > 0) || ctx.get('transfer-encoding') !== '';
}

/** The content-type check (415) and the body parser of each kind of body, shared by the routes. */
function bodyParsers(
  options: MountOptions,
): Record<'application/json' | 'multipart/form-data' | 'json-or-form', Middleware[]> {
  return {
    'json-or-form': [
      async (ctx, next) => {
        if (hasBody(ctx) && !ctx.is('application/json', 'application/x-www-form-urlencoded')) {
          throw new HttpError(
            415,
            'unsupported_media_type',
            'This endpoint takes a JSON body (Content-Type: application/json) or form fields (application/x-www-form-urlencoded)',
          );
        }
        await next();
      },
      koaBody({
        json: true,
        multipart: false,
        urlencoded: true,
        text: false,
        jsonLimit: options.maxJsonBytes,
        formLimit: options.maxJsonBytes,
        jsonStrict: false,
      }),
    ],
    'application/json': [
      async (ctx, next) => {
        if (hasBody(ctx) && !ctx.is('application/json')) {
          throw new HttpError(
            415,
            'unsupported_media_type',
            'This endpoint takes a JSON body (Content-Type: application/json)',
          );
        }
        await next();
      },
      koaBody({
        json: true,
        multipart: false,
        urlencoded: false,
        text: false,
        jsonLimit: options.maxJsonBytes,
        // Valid JSON of the wrong type (a string, a number, null) is a validation error (422),
        // like an array is; only text that is not JSON at all is a 400.
        jsonStrict: false,
      }),
    ],
    'multipart/form-data': [
      async (ctx, next) => {
        if (!ctx.is('multipart/form-data'))
          throw new HttpError(
            415,
            'unsupported_media_type',
            'This endpoint takes a multipart/form-data body',
          );
        await next();
      },
      multipartBody(options.multipart),
    ],
  };
}

/**
 * Paths of fixed routes that a parameterised route's template would also match (`/documents/stats`
 * for `/documents/{doc_id}`). The fixed route owns such a path for every method: the parameterised
 * one never serves it, so `DELETE /documents/stats` is a 405 rather than the deletion of a document
 * named "stats", and `Allow` tells the truth.
 */
function shadowedPaths(route: Route, routes: readonly Route[]): ReadonlySet<string> {
  if (!route.path.includes('{')) return new Set();
  const pattern = new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return new Set(
    routes.map((other) => other.path).filter((path) => !path.includes('{') && pattern.test(path)),
  );
}

/**
 * Routes of fixed paths by `METHOD path`, served without the router: matching a path against every
 * route's pattern and composing its chain cost more than a health probe's whole handler.
 */
export type FixedRoutes = Map<string, Middleware>;

/** Serves a request for a fixed path from `fixed`; anything else goes on to the router. */
export function serveFixedRoutes(fixed: FixedRoutes): Middleware {
  return (ctx, next) => {
    const chain = fixed.get(`${ctx.method} ${ctx.path}`);
    return chain ? chain(ctx, next) : next();
  };
}

/** Runs `middlewares` in order, each calling the next; the last one's `next` is the caller's. */
function chainOf(middlewares: readonly Middleware[]): Middleware {
  return (ctx, next) => {
    const dispatch = async (at: number): Promise<void> => {
      const middleware = middlewares[at];
      if (!middleware) return next();
      await middleware(ctx, () => dispatch(at + 1));
    };
    return dispatch(0);
  };
}

/**
 * Adds each route to the router: body parsing, validation, the handler, the response. Routes of a
 * fixed path are also added to `fixed` (the router still knows them, for 405s and `Allow`).
 */
export function mountRoutes(
  router: Router,
  prefix: string,
  routes: readonly Route[],
  options: MountOptions,
  fixed: FixedRoutes,
): void {
  const parsers = bodyParsers(options);
  for (const route of routes) {
    const path = prefix + route.path.replace(/\{([^}]+)\}/g, ':$1');
    const shadowed = new Set([...shadowedPaths(route, routes)].map((fixed) => prefix + fixed));
    const body = route.body;
    const checkParams = validator(lenient, route.params, 'path');
    const checkQuery = validator(lenient, route.query, 'query');
    const checkBody = validator(
      body?.contentType === 'application/json' ? strictTypes : lenient,
      body?.schema,
      'body',
    );
    const template = `${route.method.toUpperCase()} ${prefix}${route.path}`;
    // What the request metrics name it by (a template: ids in paths would make a series each).
    const middlewares: Middleware[] = [
      (ctx, next) => {
        (ctx.state as RequestState).route = template;
        return next();
      },
    ];
    // Before the body is read: a refused request costs no parsing.
    if (route.rateLimit && options.rateLimit) middlewares.push(options.rateLimit(route.rateLimit));
    if (body) {
      const form = body.contentType === 'application/json' && body.form === true;
      middlewares.push(...parsers[form ? 'json-or-form' : body.contentType]);
    }

    middlewares.push(async (ctx) => {
      const state = ctx.state as RequestState;
      const { fields, files } = multipartOf(ctx.state);
      const params = route.params ? checkParams({ ...ctx.params }) : {};
      const query = route.query ? checkQuery(plainQuery(ctx)) : {};
      let parsedBody: unknown = {};
      if (body?.contentType === 'application/json') {
        parsedBody = checkBody(hasBody(ctx) ? ctx.request.body : {});
      } else if (body?.contentType === 'multipart/form-data') {
        // A field sent once is its value: ajv unwraps a one-item array only for a single declared
        // type, so `conversation_id` (string or null) refused every multipart value it was sent.
        // Fields declared as arrays get it back as a one-item array (coerceTypes: 'array').
        parsedBody = checkBody(
          Object.fromEntries(
            Object.entries(fields).map(([name, values]) => [name, values.length === 1 ? values[0] : values]),
          ),
        );
        for (const [field, spec] of Object.entries(body.files)) {
          const count = files.filter((file) => file.field === field).length;
          if (spec.required && count === 0) {
            // A part without a filename in its Content-Disposition is a text field, whatever it holds.
            const sentAsField = Object.hasOwn(fields, field);
            const message = sentAsField
              ? 'must be a file part (with a filename in its Content-Disposition), not a text field'
              : 'is required (a file)';
            throw new HttpError(422, 'validation_error', `body.${field} ${message}`, [
              { location: 'body', field, message },
            ]);
          }
          if (!spec.multiple && count > 1) {
            throw new HttpError(422, 'validation_error', `body.${field} takes one file, got ${count}`, [
              { location: 'body', field, message: `takes one file, got ${count}` },
            ]);
          }
        }
      }
      const response = await handleRecordingFailures(route, options.readYourWrites, {
        query,
        params,
        body: parsedBody,
        files,
        caller: state.caller,
        // Made on first use by the request context: most handlers need neither.
        get log() {
          return state.log;
        },
        get signal() {
          return state.signal;
        },
        koa: ctx,
      });
      if (response) {
        const staleness = await awaitProjections(route, response.position, options.readYourWrites);
        ctx.status = response.status ?? 200;
        ctx.body = response.body;
        for (const [name, value] of Object.entries({ ...response.headers, ...staleness }))
          ctx.set(name, value);
      }
    });
    const method = route.method.toUpperCase();
    if (!route.path.includes('{')) {
      const chain = chainOf(middlewares);
      fixed.set(`${method} ${path}`, chain);
      if (method === 'GET') fixed.set(`HEAD ${path}`, chain);
    }
    const layer = router.register(path, [method], middlewares, {
      name: route.operationId,
    });
    if (shadowed.size > 0) {
      const matches = layer.match.bind(layer);
      layer.match = (candidate: string): boolean => !shadowed.has(candidate) && matches(candidate);
    }
  }
}
