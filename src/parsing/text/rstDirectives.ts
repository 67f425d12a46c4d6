import { parse as parseCsv } from 'csv-parse/sync';
import { tidyLines, wordSet } from './input.js';
import { rstInlineText } from './rstInline.js';
import { dedent, isBlank, type ReadNestedBlocks, type RstBlock, type RstState } from './rstModel.js';

const DIRECTIVE = /^\.\.\s+([\w][\w:+.-]*)::(?:\s+(.*))?$/;
const OPTION = /^:([\w-]+):(?:\s+(.*))?$/;
const LITERAL = wordSet('code code-block sourcecode parsed-literal highlight-block math');
const ADMONITIONS = wordSet('note warning tip important caution danger error hint attention seealso');
/** Directives without readable content of their own (tables of contents, includes, raw output, settings). */
const DROPPED = wordSet(`
  contents toctree include literalinclude raw meta highlight index default-role role sectnum
  section-numbering header footer class tabularcolumns autosummary automodule autoclass
  autofunction target-notes unicode date replace currentmodule module codeauthor sectionauthor
  moduleauthor graphviz
`);

interface Directive {
  name: string;
  argument: string;
  options: Record<string, string>;
  content: string[];
}

/**
 * An explicit markup block (`.. ` and what is indented under it): directives become blocks,
 * footnotes and citations become paragraphs, hyperlink targets, substitution definitions and
 * comments are dropped.
 */
export function readExplicitMarkup(
  block: readonly string[],
  state: RstState,
  depth: number,
  readRstBlocks: ReadNestedBlocks,
): RstBlock[] {
  const first = block[0] ?? '';
  const body = dedent(block.slice(1));
  const directive = DIRECTIVE.exec(first);
  if (directive)
    return readDirective(
      splitDirective(directive[1] ?? '', directive[2] ?? '', body),
      state,
      depth,
      readRstBlocks,
    );
  const footnote = /^\.\.\s+\[([^\]]+)\]\s*(.*)$/.exec(first);
  if (footnote) {
    const text = tidyLines([footnote[2] ?? '', ...body].map(rstInlineText));
    return text ? [{ kind: 'paragraph', text: `[${footnote[1] ?? ''}] ${text}` }] : [];
  }
  return []; // `.. _target:`, `.. |sub| …`, `__ url` and comments
}

/** Arguments run until the options or a blank line; options until a blank line; then content. */
function splitDirective(name: string, firstLine: string, body: readonly string[]): Directive {
  let i = 0;
  const argument = [firstLine];
  while (i < body.length && !isBlank(body[i]) && !OPTION.test(body[i] ?? '')) argument.push(body[i++] ?? '');
  const options: Record<string, string> = {};
  while (i < body.length && OPTION.test(body[i] ?? '')) {
    const [, key = '', value = ''] = OPTION.exec(body[i] ?? '') ?? [];
    options[key.toLowerCase()] = value.trim();
    i += 1;
  }
  while (i < body.length && isBlank(body[i])) i += 1;
  return { name: name.toLowerCase(), argument: argument.join('\n').trim(), options, content: body.slice(i) };
}

function readDirective(
  directive: Directive,
  state: RstState,
  depth: number,
  readRstBlocks: ReadNestedBlocks,
): RstBlock[] {
  const { name, argument, options, content } = directive;
  const inner = (): RstBlock[] => readRstBlocks(content, state, depth + 1);
  if (DROPPED.has(name)) return [];
  if (name === 'title') {
    state.title = argument || null;
    return [];
  }
  if (name === 'image' || name === 'figure') {
    const image: RstBlock = {
      kind: 'image',
      src: argument.split(/\s+/)[0] || null,
      alt: options.alt ?? null,
    };
    return name === 'figure' ? [image, ...inner()] : [image];
  }
  if (LITERAL.has(name))
    return content.length > 0 ? [{ kind: 'literal', text: trimBlank(content).join('\n') }] : [];
  if (ADMONITIONS.has(name) || name === 'admonition') {
    // Admonitions have no arguments: text on the directive line is their first paragraph.
    const label = name === 'admonition' ? argument : capitalise(name);
    const blocks =
      name === 'admonition'
        ? inner()
        : readRstBlocks([...argument.split('\n'), '', ...content], state, depth + 1);
    const [head, ...rest] = blocks;
    if (head?.kind === 'paragraph') return [{ kind: 'paragraph', text: `${label}: ${head.text}` }, ...rest];
    return label ? [{ kind: 'paragraph', text: `${label}:` }, ...blocks] : blocks;
  }
  if (name === 'csv-table') return csvTable(directive);
  if (name === 'list-table') return listTable(directive, inner());
  if (name === 'table') {
    return inner().map((block) => (block.kind === 'table' ? { ...block, caption: argument || null } : block));
  }
  // topic, sidebar, rubric, versionadded, container, only, and unknown (e.g. Sphinx domain)
  // directives: their argument is a line of text and their content is ordinary body text.
  const lead: RstBlock[] = argument ? [{ kind: 'paragraph', text: rstInlineText(argument) }] : [];
  return [...lead, ...inner()];
}

function csvTable(directive: Directive): RstBlock[] {
  const read = (text: string): string[][] => {
    try {
      return parseCsv(text, {
        relax_column_count: true,
        relax_quotes: true,
        skip_empty_lines: true,
        trim: true,
        delimiter: directive.options.delim === 'tab' ? '\t' : (directive.options.delim ?? ','),
      }) as string[][];
    } catch {
      return [];
    }
  };
  const header = directive.options.header ? read(directive.options.header).slice(0, 1) : [];
  const rows = read(directive.content.join('\n'));
  const headerRows = Number.parseInt(directive.options['header-rows'] ?? '0', 10) || 0;
  const cells = [...header, ...rows].map((row) => row.map(rstInlineText));
  if (cells.length === 0) return [];
  return [
    {
      kind: 'table',
      table: { cells, hasHeader: header.length > 0 || headerRows > 0 },
      caption: directive.argument || null,
    },
  ];
}

/** A list-table's content is a bullet list of rows, each a bullet list of cells. */
function listTable(directive: Directive, blocks: RstBlock[]): RstBlock[] {
  const list = blocks.find((block) => block.kind === 'list');
  if (!list || list.kind !== 'list') return [];
  const cells = list.items.map((row) => {
    const cellList = row.children.find((block) => block.kind === 'list');
    if (cellList?.kind === 'list')
      return cellList.items.map((cell) => [cell.text, ...childText(cell.children)].join('\n').trim());
    return [row.text];
  });
  const headerRows = Number.parseInt(directive.options['header-rows'] ?? '0', 10) || 0;
  return [
    { kind: 'table', table: { cells, hasHeader: headerRows > 0 }, caption: directive.argument || null },
  ];
}

function childText(blocks: readonly RstBlock[]): string[] {
  return blocks.flatMap((block) => ('text' in block ? [block.text] : []));
}

function trimBlank(lines: readonly string[]): string[] {
  let end = lines.length;
  while (end > 0 && isBlank(lines[end - 1])) end -= 1;
  return lines.slice(0, end);
}

function capitalise(word: string): string {
  return word === 'seealso' ? 'See also' : word.charAt(0).toUpperCase() + word.slice(1);
}
