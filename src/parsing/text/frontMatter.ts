/**
 * YAML-ish front matter at the very start of a Markdown file (`---` … `---` or `...`). Only
 * top-level `key: value` pairs are read (a full YAML parser is not worth a dependency for
 * `title:` and `author:`); inline lists stay as written, block lists are joined with ", ".
 */
export interface FrontMatter {
  fields: Record<string, string>;
  /** The document without the front matter block. */
  body: string;
}

const BLOCK = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

export function readFrontMatter(text: string): FrontMatter {
  const match = BLOCK.exec(text);
  if (!match) return { fields: {}, body: text };
  const fields: Record<string, string> = {};
  let lastKey: string | null = null;
  for (const line of (match[1] ?? '').split(/\r?\n/)) {
    const pair = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (pair) {
      lastKey = (pair[1] ?? '').toLowerCase();
      fields[lastKey] = unquote((pair[2] ?? '').trim());
      continue;
    }
    const item = /^\s+-\s+(.*)$/.exec(line);
    if (item && lastKey !== null) {
      const value = unquote((item[1] ?? '').trim());
      fields[lastKey] = fields[lastKey] ? `${fields[lastKey]}, ${value}` : value;
    }
  }
  // A "---" line pair without a single key is a horizontal rule, not front matter.
  if (Object.keys(fields).length === 0) return { fields: {}, body: text };
  return { fields, body: text.slice(match[0].length) };
}

function unquote(value: string): string {
  const quoted = /^(["'])(.*)\1$/.exec(value);
  return quoted ? (quoted[2] ?? '') : value;
}
