import { expect } from 'chai';
import { addTestUser, type TestUser } from '../support/assistantUsers.js';
import { startTestApp, type TestApp } from '../support/testApp.js';

/**
 * Every operation the app publishes in its OpenAPI document, sent hostile input derived from that
 * document: wrong types, out-of-range and oversized values, unknown and path-traversing ids, broken
 * JSON and multipart bodies, 100,000-deep nesting, prototype keys. Whatever an operation does with
 * it, the answer is a 4xx (or a success) in the API's error shape, in time: never a 500, a hang or
 * a dropped connection. CI's schemathesis run (.ci/hostile) generates many more requests from the
 * same document, but rarely gets past validation into multipart reading and the parsers; these
 * shapes are chosen to get there, and run with every `npm test`.
 */

interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  schema?: Schema;
}
interface Schema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  items?: Schema;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  security?: Array<Record<string, unknown>>;
}
type OpenApi = { paths: Record<string, Record<string, Operation>> };

interface Attempt {
  what: string;
  path: string;
  query?: string;
  body?: string;
  contentType?: string;
}

const LONG = 'x'.repeat(20_000);
const NASTY_STRINGS = ['', LONG, 'a\u0000b', '{"$gt":""}', "' OR 1=1 --", '../../../../etc/passwd', '\uD800'];
const NASTY_INTEGERS = ['abc', '-1', '1.5', '1e400', '99999999999999999999999', ''];
const NASTY_IDS = [
  'nonexistent',
  'a'.repeat(3_000),
  '..%2F..%2Fetc%2Fpasswd',
  '%00',
  '%F0%9F%98%80',
  '%E0%A4%A',
];

/** Values of the wrong type, or of the right type but hostile, for a body property of `schema`. */
function hostileValues(schema: Schema | undefined): unknown[] {
  const wrongTypes: unknown[] = [12345, 'text', true, null, [], {}, [1, 'two', null]];
  const type = schema?.type;
  if (type === 'string')
    return [...wrongTypes.filter((v) => typeof v !== 'string'), LONG.repeat(5), 'a\u0000b'];
  if (type === 'integer' || type === 'number') {
    return [...wrongTypes.filter((v) => typeof v !== 'number'), -1, 1e308, 2 ** 53 + 1, 0.5];
  }
  if (type === 'array')
    return [...wrongTypes.filter((v) => !Array.isArray(v)), Array(10_000).fill(LONG.slice(0, 50))];
  return wrongTypes;
}

/** A JSON value nested `depth` arrays deep. */
const deeplyNested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

function jsonAttempts(base: Omit<Attempt, 'what'>, schema: Schema | undefined): Attempt[] {
  const json = (what: string, body: string): Attempt => ({
    ...base,
    what,
    body,
    contentType: 'application/json',
  });
  const attempts = [
    json('truncated JSON', '{"a":'),
    json('an array', '[]'),
    json('null', 'null'),
    json('a string', '"text"'),
    json('an empty object', '{}'),
    json('nested 100,000 deep', deeplyNested(100_000)),
    json('prototype keys', '{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}}}'),
    { ...base, what: 'a JSON body sent as text/plain', body: '{}', contentType: 'text/plain' },
  ];
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    for (const value of hostileValues(property)) {
      attempts.push(
        json(`${name} = ${JSON.stringify(value)?.slice(0, 40)}`, JSON.stringify({ [name]: value })),
      );
    }
  }
  return attempts;
}

function multipartAttempts(base: Omit<Attempt, 'what'>): Attempt[] {
  const boundary = 'hostile-boundary';
  const part = (headers: string, content: string) =>
    `--${boundary}\r\n${headers}\r\n\r\n${content}\r\n--${boundary}--\r\n`;
  const multipart = (
    what: string,
    body: string,
    contentType = `multipart/form-data; boundary=${boundary}`,
  ) => ({
    ...base,
    what,
    body,
    contentType,
  });
  return [
    multipart('no parts', `--${boundary}--\r\n`),
    multipart(
      'broken boundaries',
      `--${boundary}\r\nContent-Disposition: form-data; name="file"\r\n\r\nhalf`,
    ),
    multipart(
      'no boundary parameter',
      part('Content-Disposition: form-data; name="file"', 'x'),
      'multipart/form-data',
    ),
    multipart('a field instead of a file', part('Content-Disposition: form-data; name="file"', 'just text')),
    multipart(
      'a file named ../../etc/passwd',
      part('Content-Disposition: form-data; name="file"; filename="../../etc/passwd"', 'root:x:0:0'),
    ),
    multipart(
      'a file with a 5,000-character name',
      part(`Content-Disposition: form-data; name="file"; filename="${'n'.repeat(5_000)}.md"`, '# Title'),
    ),
    multipart(
      'an empty file',
      part(
        'Content-Disposition: form-data; name="file"; filename="empty.md"\r\nContent-Type: text/markdown',
        '',
      ),
    ),
    multipart(
      'binary junk named .pdf',
      part('Content-Disposition: form-data; name="file"; filename="junk.pdf"', '\u0000\u0001%PDF-junk\u00ff'),
    ),
    { ...base, what: 'JSON where multipart is expected', body: '{}', contentType: 'application/json' },
  ];
}

function attemptsFor(path: string, operation: Operation): Attempt[] {
  const parameters = operation.parameters ?? [];
  const pathParameters = parameters.filter((parameter) => parameter.in === 'path');
  const fill = (value: string) => path.replace(/\{[^}]+\}/g, value);
  const base = { path: fill('nonexistent') };
  const attempts: Attempt[] = [{ ...base, what: 'no input' }];
  if (pathParameters.length > 0) {
    for (const id of NASTY_IDS) attempts.push({ path: fill(id), what: `path id ${id.slice(0, 30)}` });
  }
  for (const parameter of parameters.filter((candidate) => candidate.in === 'query')) {
    const type = parameter.schema?.type;
    const values =
      type === 'integer' || type === 'number'
        ? NASTY_INTEGERS
        : type === 'boolean'
          ? ['maybe', '2']
          : NASTY_STRINGS;
    for (const value of values) {
      attempts.push({
        ...base,
        what: `${parameter.name}=${value.slice(0, 30)}`,
        query: new URLSearchParams({ [parameter.name]: value }).toString(),
      });
    }
    attempts.push({
      ...base,
      what: `${parameter.name} twice`,
      query: `${parameter.name}=1&${parameter.name}=2`,
    });
  }
  const content = operation.requestBody?.content ?? {};
  if (content['application/json']) attempts.push(...jsonAttempts(base, content['application/json'].schema));
  if (content['multipart/form-data']) attempts.push(...multipartAttempts(base));
  return attempts;
}

/** Whether a 4xx body is in the error shape of its API. */
function inErrorShape(path: string, body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  if (path.startsWith('/api/method/')) {
    const message = (body as { message?: { success?: unknown; error?: { type?: unknown } } }).message;
    return message?.success === false && typeof message.error?.type === 'string';
  }
  if (path.startsWith('/v1/')) {
    // OpenAI's: {error: {message, type, param, code}}.
    const error = (body as { error?: { message?: unknown; type?: unknown; code?: unknown } }).error;
    return typeof error?.message === 'string' && typeof error.type === 'string' && 'code' in error;
  }
  const error = body as { error?: unknown; status_code?: unknown };
  return typeof error.error === 'string' && typeof error.status_code === 'number';
}

describe('hostile input to every published operation', function () {
  this.timeout(300_000);
  let app: TestApp;
  let user: TestUser;
  let url: string;
  let document: OpenApi;

  before(async () => {
    app = await startTestApp({
      env: { RATE_LIMIT_CHAT_PER_MINUTE: '100000', RATE_LIMIT_TOOLS_PER_MINUTE: '100000' },
    });
    user = await addTestUser(app, 'mallory');
    url = (await app.server()).url;
    document = (await app.http.get('/openapi.json').expect(200)).body as OpenApi;
  });
  after(() => app.stop());

  it('answers each with a success or a 4xx in the error shape, in time: never a 500, a hang or a reset', async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (path === '/api/method/logout') continue; // would end the session the other attempts use
        for (const attempt of attemptsFor(path, operation)) {
          sent += 1;
          const label = `${method.toUpperCase()} ${path} with ${attempt.what}`;
          const headers: Record<string, string> = { Authorization: user.authorization };
          if (attempt.contentType) headers['Content-Type'] = attempt.contentType;
          try {
            const response = await fetch(`${url}${attempt.path}${attempt.query ? `?${attempt.query}` : ''}`, {
              method: method.toUpperCase(),
              headers,
              ...(attempt.body !== undefined && method !== 'get' ? { body: attempt.body } : {}),
              signal: AbortSignal.timeout(20_000),
            });
            if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
              // A stream that opened: its status is the answer; the stream itself is not awaited.
              await response.body?.cancel();
              if (response.status >= 500) failures.push(`${label}: ${response.status}`);
              continue;
            }
            const text = await response.text();
            if (response.status >= 500) {
              failures.push(`${label}: ${response.status} ${text.slice(0, 200)}`);
            } else if (response.status >= 400) {
              let body: unknown = null;
              try {
                body = JSON.parse(text);
              } catch {
                // left null: not in the error shape
              }
              if (!inErrorShape(path, body))
                failures.push(`${label}: ${response.status} not in the error shape: ${text.slice(0, 200)}`);
            }
          } catch (error) {
            failures.push(`${label}: ${(error as Error).name} ${(error as Error).message}`);
          }
        }
      }
    }
    expect(sent, 'attempts made').to.be.greaterThan(500);
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });
});
