import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { Context } from 'koa';
import type { Caller } from '../commands/context.js';
import type { Logger } from '../log.js';
import type { RateLimitClass } from '../rateLimit/rateLimiter.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A JSON schema as written in route definitions (`as const` so types can be inferred from it). */
export type Schema = Exclude<JSONSchema, boolean>;

export interface ResponseSpec {
  description: string;
  schema?: Schema;
  /** Default application/json. */
  contentType?: string;
  /** The same status in another content type the request may ask for (a stream of events, say). */
  alternative?: { contentType: string; schema?: Schema };
}

export interface UploadedFile {
  field: string;
  fileName: string;
  mimeType: string | null;
  size: number;
  /**
   * The file's bytes: held in memory for a small upload, read from its temporary file (removed
   * after the response) for a large one. Read them before the response.
   */
  read(): Promise<Buffer>;
}

export type JsonBody<S extends Schema> = {
  contentType: 'application/json';
  schema: S;
  /** Also takes the same fields as `application/x-www-form-urlencoded` (strings), as HTML forms send them. */
  form?: boolean;
};
/** Form fields are validated like query parameters (strings coerced); files are checked by name. */
export type MultipartBody<S extends Schema> = {
  contentType: 'multipart/form-data';
  schema: S;
  files: Record<string, { required: boolean; multiple: boolean; description: string }>;
};

type Infer<S> = [S] extends [never] ? Record<string, never> : S extends Schema ? FromSchema<S> : never;

export interface RouteRequest<Q, P, B> {
  query: Q;
  params: P;
  body: B;
  files: UploadedFile[];
  caller: Caller;
  log: Logger;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  koa: Context;
}

export interface RouteResponse {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * The log position of the events the handler's command appended. With `readAfterWrite`, the
   * response waits until those projections have applied it, so the client's next read sees its write.
   */
  position?: number;
}

/** What every route declares besides its schemas and handler. */
interface RouteInfo {
  method: HttpMethod;
  /** OpenAPI path template relative to the API's prefix, e.g. `/tasks/{task_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** Public routes need no credentials. */
  public?: boolean;
  /**
   * The projections that serve the reads a client makes after this write (`GET /tasks/{id}` after
   * `DELETE /tasks/{id}`). The response waits, bounded, until they reach the handler's `position`.
   */
  readAfterWrite?: readonly string[];
  /**
   * The rate limit the route's requests count against, per user: `chat` (chat and conversation
   * endpoints) or `tools` (tool executions). None: not limited.
   */
  rateLimit?: RateLimitClass;
  responses: Readonly<Record<number, ResponseSpec>>;
}

export interface Route extends RouteInfo {
  query?: Schema;
  params?: Schema;
  body?: JsonBody<Schema> | MultipartBody<Schema>;
  /** Returns the response, or nothing when it wrote to `koa` itself (streams). */
  handle(request: RouteRequest<unknown, unknown, unknown>): Promise<RouteResponse | void>;
}

/**
 * Declares a route. The schemas are validated with ajv before `handle` runs, typed for `handle`
 * through `FromSchema`, and published in `/openapi.json`, so the three can never disagree.
 */
export function defineRoute<
  const Q extends Schema = never,
  const P extends Schema = never,
  const B extends Schema = never,
>(
  route: RouteInfo & {
    query?: Q;
    params?: P;
    body?: JsonBody<B> | MultipartBody<B>;
    handle(request: RouteRequest<Infer<Q>, Infer<P>, Infer<B>>): Promise<RouteResponse | void>;
  },
): Route {
  return route as unknown as Route;
}
