import type { Route, Schema } from './route.js';

export interface ApiDescription {
  /** Path prefix of the API's routes, e.g. `/api/v1`. */
  prefix: string;
  routes: readonly Route[];
  /** Security requirement of non-public routes (names in `securitySchemes`). */
  security: ReadonlyArray<Record<string, string[]>>;
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
                description: spec.description,
              }
            : { type: 'string', contentMediaType: 'application/octet-stream', description: spec.description },
        ]),
      ),
      ...(fields.properties ?? {}),
    },
    required: [
      ...files.filter(([, spec]) => spec.required).map(([name]) => name),
      ...(fields.required ?? []),
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
      const responses = Object.fromEntries(
        Object.entries(route.responses).map(([status, response]) => [
          status,
          {
            description: response.description,
            ...(response.schema || response.contentType
              ? {
                  content: {
                    [response.contentType ?? 'application/json']: { schema: response.schema ?? {} },
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
                  required: true,
                  content: {
                    [route.body.contentType]: {
                      schema:
                        route.body.contentType === 'application/json'
                          ? route.body.schema
                          : multipartSchema(route),
                    },
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
      },
    },
  };
}
