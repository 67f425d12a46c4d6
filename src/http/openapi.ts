import type { ResponseSpec, Route, Schema } from './route.js';

export interface ApiDescription {
  /** Path prefix of the API's routes, e.g. `/api/v1`. */
  prefix: string;
  routes: readonly Route[];
  /** Security requirement of non-public routes (names in `securitySchemes`). */
  security: ReadonlyArray<Record<string, string[]>>;
  /** The API's error body, for the error responses every route of a kind can give. */
  errorSchema: Schema;
}

type ResponseSpecs = Route['responses'];

/**
 * The errors the HTTP layer itself gives, by what a route takes, so that no route can forget to
 * declare one: authentication on protected routes, body parsing and size limits, validation, an
 * unavailable store, a bug. A route's own declaration of a status wins.
 */
function standardErrors(route: Route, errorSchema: Schema): ResponseSpecs {
  const responses: Record<number, ResponseSpec> = {};
  const add = (status: number, description: string): void => {
    responses[status] = { description, schema: errorSchema };
  };
  const body = route.body?.contentType;
  if (body === 'application/json') add(400, 'The body is not JSON');
  if (body === 'multipart/form-data') {
    add(400, 'The multipart body cannot be read');
    add(408, 'The upload stalled or took too long to arrive');
  }
  if (!route.public) {
    add(401, 'No credentials');
    add(403, 'Invalid credentials');
  }
  if (body) {
    add(413, 'The body is larger than this endpoint accepts');
    add(415, 'Wrong Content-Type for this endpoint');
  }
  if (body || route.query || route.params) add(422, 'Invalid parameters or body');
  if (route.rateLimit)
    add(429, `Rate limit of the ${route.rateLimit} class reached; retry after Retry-After seconds`);
  add(500, 'An unexpected error (details in the log, under the request id)');
  add(503, 'A store the request needs is unavailable; retry later');
  return responses;
}

/** Properties with a default are filled in when absent: clients need not send them. */
function withoutDefaultedRequired(schema: Schema): Schema {
  const object = schema as {
    properties?: Record<string, Record<string, unknown>>;
    required?: readonly string[];
  };
  if (!object.properties || !object.required) return schema;
  const required = object.required.filter((name) => !('default' in (object.properties?.[name] ?? {})));
  return { ...schema, required } as Schema;
}

/**
 * Whether a request must carry a body: only when something in it is required. A body whose fields
 * all have defaults or are optional may be left out (it is read as `{}`), as `create_conversation`
 * without a title is.
 */
function bodyRequired(route: Route): boolean {
  if (!route.body) return false;
  const schema =
    route.body.contentType === 'application/json'
      ? withoutDefaultedRequired(route.body.schema)
      : multipartSchema(route);
  return ((schema as { required?: readonly string[] }).required ?? []).length > 0;
}

/**
 * A Server-Sent Events response as OpenAPI tools read it: each event an object whose `data` is a
 * JSON text (described by the route's schema, when it gives more than "a string").
 */
/** A response body's schema as published: an event stream's events, or the body itself. */
const contentSchema = (contentType: string | undefined, schema: Schema | undefined): Schema =>
  contentType === 'text/event-stream' ? sseEventSchema(schema) : (schema ?? {});

function sseEventSchema(data: Schema | undefined): Schema {
  const described =
    data && !(Object.keys(data).length === 1 && (data as { type?: unknown }).type === 'string');
  return {
    type: 'object',
    required: ['data'],
    properties: {
      event: { type: 'string' },
      id: { type: 'string' },
      retry: { type: 'integer' },
      data: {
        type: 'string',
        contentMediaType: 'application/json',
        ...(described ? { contentSchema: data } : {}),
      },
    },
  } as Schema;
}

function parameters(location: 'query' | 'path', schema: Schema | undefined): unknown[] {
  if (!schema || typeof schema !== 'object' || !('properties' in schema) || !schema.properties) return [];
  const required = new Set<string>((schema.required as readonly string[] | undefined) ?? []);
  return Object.entries(schema.properties).map(([name, property]) => {
    const { description, ...rest } = property as Record<string, unknown>;
    return {
      name,
      in: location,
      // A parameter with a default is listed as required only so handlers are typed with it present.
      required: location === 'path' || (required.has(name) && !('default' in rest)),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function multipartSchema(route: Route): Record<string, unknown> {
  if (route.body?.contentType !== 'multipart/form-data') return {};
  const fields = route.body.schema as { properties?: Record<string, unknown>; required?: readonly string[] };
  const files = Object.entries(route.body.files);
  return {
    type: 'object',
    properties: {
      ...Object.fromEntries(
        files.map(([name, spec]) => [
          name,
          spec.multiple
            ? {
                type: 'array',
                items: { type: 'string', contentMediaType: 'application/octet-stream' },
                ...(spec.required ? { minItems: 1 } : {}),
                description: spec.description,
              }
            : { type: 'string', contentMediaType: 'application/octet-stream', description: spec.description },
        ]),
      ),
      ...(fields.properties ?? {}),
    },
    required: [
      ...files.filter(([, spec]) => spec.required).map(([name]) => name),
      ...((withoutDefaultedRequired(fields as Schema) as { required?: readonly string[] }).required ?? []),
    ],
  };
}

/** The OpenAPI 3.1 document of all APIs, built from the same route definitions that serve them. */
export function buildOpenApi(
  info: { title: string; version: string; description: string },
  apis: readonly ApiDescription[],
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const api of apis) {
    for (const route of api.routes) {
      const path = `${api.prefix}${route.path}`;
      const declared: ResponseSpecs = { ...standardErrors(route, api.errorSchema), ...route.responses };
      const responses = Object.fromEntries(
        Object.entries(declared).map(([status, response]) => [
          status,
          {
            description: response.description,
            ...(response.schema || response.contentType
              ? {
                  content: {
                    [response.contentType ?? 'application/json']: {
                      schema: contentSchema(response.contentType, response.schema),
                    },
                    ...(response.alternative
                      ? {
                          [response.alternative.contentType]: {
                            schema: contentSchema(
                              response.alternative.contentType,
                              response.alternative.schema,
                            ),
                          },
                        }
                      : {}),
                  },
                }
              : {}),
          },
        ]),
      );
      paths[path] = {
        ...paths[path],
        [route.method]: {
          operationId: route.operationId,
          summary: route.summary,
          ...(route.description ? { description: route.description } : {}),
          tags: route.tags,
          parameters: [...parameters('path', route.params), ...parameters('query', route.query)],
          ...(route.body
            ? {
                requestBody: {
                  required: bodyRequired(route),
                  content: {
                    [route.body.contentType]: {
                      schema:
                        route.body.contentType === 'application/json'
                          ? withoutDefaultedRequired(route.body.schema)
                          : multipartSchema(route),
                    },
                    ...(route.body.contentType === 'application/json' && route.body.form
                      ? {
                          'application/x-www-form-urlencoded': {
                            schema: withoutDefaultedRequired(route.body.schema),
                          },
                        }
                      : {}),
                  },
                },
              }
            : {}),
          responses,
          security: route.public ? [] : api.security,
        },
      };
    }
  }
  return {
    openapi: '3.1.0',
    info,
    paths,
    components: {
      securitySchemes: {
        ApiKeyAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'One of the keys configured in API_KEYS',
        },
        SessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'sid',
          description:
            'The session cookie POST /api/method/login sets: the Assistant API, and the Retrieval API for requests a browser sends (the web console; changes only from this server’s pages)',
        },
        ApiKeyPair: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            '`token <key>:<secret>`, a key pair from `archivist users key NAME` (Assistant API; on the Retrieval API it reads as that user)',
        },
        BearerKeyPair: {
          type: 'http',
          scheme: 'bearer',
          description:
            '`Bearer <key>:<secret>`: a key pair as OpenAI clients send their API key (the OpenAI wire; the other APIs take it too)',
        },
        BearerJwt: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            'A JWT when JWT_SECRET, JWT_JWKS_URL or JWT_JWKS_FILE is configured (both APIs; on the Retrieval API it reads as that user)',
        },
      },
    },
  };
}
