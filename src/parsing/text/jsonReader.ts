import { ParseError } from '../errors.js';

/** A JSON value as read: numbers keep their source text (no precision lost), keys keep their order. */
export type JsonNode =
  | { kind: 'object'; entries: Array<[string, JsonNode]> }
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'string'; value: string }
  | { kind: 'number'; text: string }
  | { kind: 'boolean'; value: boolean }
  | { kind: 'null' };

type Container = { node: Extract<JsonNode, { kind: 'object' | 'array' }>; key: string; fresh: boolean };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/**
 * An iterative JSON reader: the nesting depth is checked as containers open (`too_complex` past
 * `maxDepth`, before anything deeper is read), so a 100,000-deep array costs nothing and never
 * overflows the stack; syntax errors are `corrupt_document` with line, column and offset.
 */
export function readJson(text: string, maxDepth: number, fileName: string): JsonNode {
  let position = 0;
  const stack: Container[] = [];
  let root: JsonNode | null = null;

  const fail = (expected: string): never => {
    const before = text.slice(0, position);
    const line = before.split('\n').length;
    const column = position - before.lastIndexOf('\n');
    const found = position < text.length ? `'${text.slice(position, position + 12)}'` : 'the end of the file';
    throw new ParseError(
      'corrupt_document',
      `${fileName}: invalid JSON at line ${line}, column ${column} (offset ${position}): expected ${expected}, found ${found}`,
    );
  };
  const skipSpace = (): void => {
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return;
      position += 1;
    }
  };
  const attach = (node: JsonNode): void => {
    const parent = stack[stack.length - 1];
    if (!parent) root = node;
    else if (parent.node.kind === 'array') parent.node.items.push(node);
    else parent.node.entries.push([parent.key, node]);
  };
  const readString = (): string => {
    position += 1; // opening quote
    let out = '';
    let chunkStart = position;
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code === 0x22) {
        out += text.slice(chunkStart, position);
        position += 1;
        return out;
      }
      if (code < 0x20) fail('a closing quote (control characters must be escaped)');
      if (code === 0x5c) {
        out += text.slice(chunkStart, position);
        const escape = text[position + 1] ?? '';
        if (escape === 'u') {
          const hex = text.slice(position + 2, position + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('four hex digits after \\u');
          out += String.fromCharCode(Number.parseInt(hex, 16));
          position += 6;
        } else {
          const replacement = ESCAPES[escape];
          if (replacement === undefined) fail('a valid escape sequence');
          out += replacement;
          position += 2;
        }
        chunkStart = position;
        continue;
      }
      position += 1;
    }
    return fail('a closing quote');
  };
  const readValue = (): void => {
    skipSpace();
    const char = text[position];
    if (char === '{' || char === '[') {
      if (stack.length >= maxDepth) {
        throw new ParseError(
          'too_complex',
          `${fileName}: JSON nests more than ${maxDepth} levels deep (maxNestingDepth)`,
        );
      }
      const node: Container['node'] =
        char === '{' ? { kind: 'object', entries: [] } : { kind: 'array', items: [] };
      attach(node);
      stack.push({ node, key: '', fresh: true });
      position += 1;
      return;
    }
    if (char === '"') return attach({ kind: 'string', value: readString() });
    if (text.startsWith('true', position)) {
      position += 4;
      return attach({ kind: 'boolean', value: true });
    }
    if (text.startsWith('false', position)) {
      position += 5;
      return attach({ kind: 'boolean', value: false });
    }
    if (text.startsWith('null', position)) {
      position += 4;
      return attach({ kind: 'null' });
    }
    NUMBER.lastIndex = position;
    const number = NUMBER.exec(text);
    if (!number) return fail('a value');
    position += number[0].length;
    attach({ kind: 'number', text: number[0] });
  };

  readValue();
  // After each value: close the container, or move on to its next element (or key).
  for (;;) {
    const top = stack[stack.length - 1];
    if (!top) break;
    skipSpace();
    const closer = top.node.kind === 'object' ? '}' : ']';
    if (text[position] === closer) {
      position += 1;
      stack.pop();
      continue;
    }
    if (!top.fresh) {
      if (text[position] !== ',') fail(`',' or '${closer}'`);
      position += 1;
      skipSpace();
    }
    top.fresh = false;
    if (top.node.kind === 'object') {
      if (text[position] !== '"') fail('a property name in double quotes');
      top.key = readString();
      skipSpace();
      if (text[position] !== ':') fail("':' after the property name");
      position += 1;
    }
    readValue();
  }
  skipSpace();
  if (position < text.length) fail('the end of the data after the JSON value (one value per file)');
  if (root === null) return fail('a value');
  return root;
}
