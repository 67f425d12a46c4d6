import type { ParseContext } from '../context.js';
import { ParseError } from '../errors.js';
import type { ParsedDocument } from '../model.js';
import { createDocumentBuilder, type DocumentBuilder } from './documentBuilder.js';
import { readTextInput } from './input.js';
import { readJson, type JsonNode } from './jsonReader.js';

/** Object keys down to this depth become headings; deeper values become `path: value` lines. */
const HEADING_LEVELS = 3;
/** `path: value` lines per paragraph, so the chunker can pack them (one huge paragraph cannot). */
const LINES_PER_PARAGRAPH = 25;

type Scalar = Extract<JsonNode, { kind: 'string' | 'number' | 'boolean' | 'null' }>;

/**
 * JSON as readable structured text: keys of the top three levels are headings (array elements
 * that are objects are headed `key[i]`), scalars are `path: value` lines (the path relative to the
 * nearest heading), arrays of scalars are lists, arrays of flat objects that share keys are
 * tables. Nesting is bounded while reading (`too_complex`); invalid JSON is `corrupt_document`
 * with its position. Title: a top-level string `title` or `name`, else the file name.
 */
export async function parseJson(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const { text } = readTextInput(bytes, ctx);
  const root = readJson(text, ctx.limits.maxNestingDepth, ctx.fileName);
  if (isEmpty(root))
    throw new ParseError('empty_document', `${ctx.fileName} holds an empty JSON ${root.kind}`);
  const builder = createDocumentBuilder(ctx, '.json');
  await builder.checkpoint();
  const render = createRenderer(builder);
  render.value(root, '', 1);
  render.flushLines();
  return builder.finish({ title: titleOf(root) });
}

function createRenderer(builder: DocumentBuilder) {
  let lines: string[] = [];
  const line = (path: string, value: string): void => {
    lines.push(path ? `${path}: ${value}` : value);
    if (lines.length >= LINES_PER_PARAGRAPH) flushLines();
  };
  const flushLines = (): void => {
    if (lines.length > 0) builder.paragraph(lines.join('\n'));
    lines = [];
  };

  /** Everything below `path` as lines (used below the heading levels and inside mixed arrays). */
  const flatten = (node: JsonNode, path: string): void => {
    if (isScalar(node)) return line(path, scalarText(node));
    if (node.kind === 'object') {
      if (node.entries.length === 0) return line(path, '{}');
      for (const [key, child] of node.entries) flatten(child, path ? `${path}.${key}` : key);
      return;
    }
    if (node.items.length === 0) return line(path, '[]');
    if (node.items.every(isScalar))
      return line(path, node.items.map((item) => scalarText(item as Scalar)).join(', '));
    node.items.forEach((item, i) => flatten(item, `${path}[${i}]`));
  };

  /**
   * `node` is the content of the section named by the last heading (`level` − 1 headings above).
   * Lists and tables need no heading level, so they are kept at any depth; objects and mixed
   * arrays open headings down to `HEADING_LEVELS`, then turn into lines relative to that heading.
   */
  const value = (node: JsonNode, name: string, level: number): void => {
    if (isScalar(node)) return line(name, scalarText(node));
    if (node.kind === 'array') {
      if (node.items.length === 0) return line(name, '[]');
      if (node.items.every(isScalar)) {
        flushLines();
        return builder.list(
          node.items.map((item) => scalarText(item as Scalar)),
          false,
        );
      }
      const table = asTable(node.items);
      if (table) {
        flushLines();
        return builder.table(table, true, name || null);
      }
    }
    if (level > HEADING_LEVELS) return flatten(node, '');
    const children: Array<[string, JsonNode]> =
      node.kind === 'object' ? node.entries : node.items.map((item, i) => [`${name}[${i}]`, item]);
    for (const [key, child] of children) {
      if (isScalar(child) || isEmpty(child)) {
        flatten(child, key);
        continue;
      }
      flushLines();
      builder.heading(key, level);
      value(child, key, level + 1);
      flushLines();
    }
  };

  return { value, flushLines };
}

/**
 * Objects with only scalar values, sharing at least one key among all of them, read best as a
 * table: one row per object, one column per key (first-seen order), missing values empty.
 */
function asTable(items: readonly JsonNode[]): string[][] | null {
  const objects: Array<Array<[string, JsonNode]>> = [];
  for (const item of items) {
    if (
      item.kind !== 'object' ||
      item.entries.length === 0 ||
      !item.entries.every(([, child]) => isScalar(child))
    )
      return null;
    objects.push(item.entries);
  }
  const columns = [...new Set(objects.flatMap((entries) => entries.map(([key]) => key)))];
  const shared = columns.some((key) => objects.every((entries) => entries.some(([k]) => k === key)));
  if (!shared) return null;
  const rows = objects.map((entries) => {
    const byKey = new Map(entries);
    return columns.map((key) => {
      const cell = byKey.get(key);
      return cell && isScalar(cell) ? scalarText(cell) : '';
    });
  });
  return [columns, ...rows];
}

function isScalar(node: JsonNode): node is Scalar {
  return node.kind !== 'object' && node.kind !== 'array';
}

function isEmpty(node: JsonNode): boolean {
  return (
    (node.kind === 'object' && node.entries.length === 0) ||
    (node.kind === 'array' && node.items.length === 0)
  );
}

function scalarText(node: Scalar): string {
  switch (node.kind) {
    case 'string':
      return node.value;
    case 'number':
      return node.text;
    case 'boolean':
      return String(node.value);
    case 'null':
      return 'null';
  }
}

function titleOf(root: JsonNode): string | null {
  if (root.kind !== 'object') return null;
  for (const wanted of ['title', 'name']) {
    const entry = root.entries.find(([key]) => key.toLowerCase() === wanted);
    if (entry && entry[1].kind === 'string' && entry[1].value.trim() && entry[1].value.length <= 200)
      return entry[1].value;
  }
  return null;
}
