import type { Token } from 'markdown-it';
import type { ParseContext } from '../context.js';
import { ParseError } from '../errors.js';
import { extensionOf } from '../detect/detectFormat.js';
import type { ParsedDocument } from '../model.js';
import { createDocumentBuilder, type DocumentBuilder, type FoundImage } from './documentBuilder.js';
import { readFrontMatter } from './frontMatter.js';
import { assertHtmlDepth } from './htmlDepth.js';
import { parseLightHtmlDocument } from './htmlLightDom.js';
import { walkHtml } from './htmlWalk.js';
import { imageOnlyLine } from './decorativeImages.js';
import { imageFromSource } from './images.js';
import { markdownParser } from './markdownParser.js';
import { readTextInput, tidyLine, tidyLines } from './input.js';

/** Tags of the block containers whose nesting counts against `maxNestingDepth`. */
const CONTAINERS = new Set(['blockquote', 'ul', 'ol']);

interface ListState {
  ordered: boolean;
  depth: number;
  items: string[];
  /** Index in `items` of the item being filled, per nesting level. */
  open: number[];
  images: FoundImage[];
}

interface TableState {
  rows: string[][];
  row: string[];
  inHead: boolean;
  hasHeader: boolean;
}

/**
 * Markdown via markdown-it: ATX and setext headings with their levels, paragraphs, lists (nested
 * items flattened with indentation), GFM tables, fenced and indented code as preformatted
 * paragraphs, images as image blocks (`data:` URIs decoded, nothing fetched), raw HTML blocks read
 * like HTML, and `title:`/`author:` from YAML front matter. Inline markup is reduced to its text.
 */
export async function parseMarkdown(bytes: Uint8Array, ctx: ParseContext): Promise<ParsedDocument> {
  const { text } = readTextInput(bytes, ctx);
  const { fields, body } = readFrontMatter(text);
  const builder = createDocumentBuilder(ctx, extensionOf(ctx.fileName) === '.markdown' ? '.markdown' : '.md');
  const tokens = markdownParser(ctx.limits.maxNestingDepth).parse(body, {});
  await builder.checkpoint();
  let depth = 0;

  let list: ListState | null = null;
  let table: TableState | null = null;
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i];
    if (!token) continue;
    const inline = tokens[i + 1]?.type === 'inline' ? tokens[i + 1] : undefined;
    depth += token.nesting !== 0 && CONTAINERS.has(token.tag) ? token.nesting : 0;
    if (depth > ctx.limits.maxNestingDepth) {
      throw new ParseError(
        'too_complex',
        `${ctx.fileName}: lists or block quotes nest more than ${ctx.limits.maxNestingDepth} levels deep (maxNestingDepth)`,
      );
    }
    switch (token.type) {
      case 'heading_open': {
        const { text: heading } = inlineContent(inline, false);
        if (list) appendToItem(list, heading);
        else builder.heading(heading.replace(/\n/g, ' '), Number(token.tag.slice(1)));
        break;
      }
      case 'paragraph_open': {
        const content = inlineContent(inline, false);
        if (list) {
          appendToItem(list, content.text.replace(/\n/g, ' '));
          list.images.push(...content.images);
        } else {
          builder.paragraph(content.text);
          for (const image of imageOnlyLine(content.text, content.images)) builder.image(image);
        }
        break;
      }
      case 'bullet_list_open':
      case 'ordered_list_open':
        list ??= { ordered: token.type === 'ordered_list_open', depth: 0, items: [], open: [], images: [] };
        list.depth += 1;
        break;
      case 'list_item_open':
        if (list) {
          list.items.push('');
          list.open.push(list.items.length - 1);
        }
        break;
      case 'list_item_close':
        list?.open.pop();
        break;
      case 'bullet_list_close':
      case 'ordered_list_close':
        if (list && --list.depth === 0) {
          builder.list(list.items, list.ordered);
          for (const image of list.images) builder.image(image);
          list = null;
        }
        break;
      case 'table_open':
        table = { rows: [], row: [], inHead: false, hasHeader: false };
        break;
      case 'thead_open':
      case 'thead_close':
        if (table) table.inHead = token.type === 'thead_open';
        break;
      case 'tr_open':
        if (table) table.row = [];
        break;
      case 'th_open':
      case 'td_open':
        table?.row.push(inlineContent(inline, true).text.replace(/\n/g, ' '));
        break;
      case 'tr_close':
        if (table) {
          table.rows.push(table.row);
          if (table.inHead) table.hasHeader = true;
        }
        break;
      case 'table_close':
        if (table) builder.table(table.rows, table.hasHeader);
        table = null;
        break;
      case 'fence':
      case 'code_block':
        if (list) appendToItem(list, token.content.trim());
        else builder.paragraph(token.content, true);
        break;
      case 'html_block':
        if (list) appendToItem(list, tidyLines(token.content.replace(/<[^>]*>/g, ' ').split('\n')));
        else readHtmlBlock(token.content, builder, ctx);
        break;
      default:
        break; // blockquote, hr and closing tokens carry no text of their own
    }
    if ((i & 0xfff) === 0xfff) await builder.checkpoint();
  }

  const { title = null, author = null, ...rest } = fields;
  return builder.finish({ title, author, extra: rest });
}

function appendToItem(list: ListState, text: string): void {
  const index = list.open[list.open.length - 1];
  if (index === undefined || !text.trim()) return;
  const current = list.items[index] ?? '';
  list.items[index] = current ? `${current} ${text.trim()}` : '  '.repeat(list.depth - 1) + text.trim();
}

/** Text of an inline token; images are collected (or, in table cells, read as their alt text). */
function inlineContent(
  inline: Token | undefined,
  imagesAsText: boolean,
): { text: string; images: FoundImage[] } {
  const images: FoundImage[] = [];
  let text = '';
  for (const child of inline?.children ?? []) {
    switch (child.type) {
      case 'text':
      case 'text_special':
      case 'code_inline':
        text += child.content;
        break;
      case 'softbreak':
      case 'hardbreak':
        text += '\n';
        break;
      case 'image':
        if (imagesAsText) text += child.content;
        else images.push(imageFromSource(stringOrNull(child.attrGet('src')), child.content || null));
        break;
      case 'html_inline':
        if (/^<br\s*\/?>$/i.test(child.content)) text += '\n';
        else if (/^<img\b/i.test(child.content)) {
          const image = imageFromTag(child.content);
          if (imagesAsText) text += image.altText ?? '';
          else images.push(image);
        }
        break;
      default:
        break; // link, emphasis and strike markers: keep only the text between them
    }
  }
  return { text: text.includes('\n') ? tidyLines(text.split('\n')) : tidyLine(text), images };
}

function imageFromTag(tag: string): FoundImage {
  const attribute = (name: string): string | null => {
    const match = new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
    return match ? (match[1] ?? match[2] ?? match[3] ?? null) : null;
  };
  return imageFromSource(attribute('src'), attribute('alt'));
}

// Nothing but comments (a third of READMEs' HTML blocks: `<!-- badges -->`): nothing to read. Strict,
// so that what a browser ends early (`<!-->`, `<!--->`, `--!>`) is still read as HTML.
const ONLY_COMMENTS = /^\s*(?:<!--(?!-?>)(?:(?!--!>)[^])*?-->\s*)+$/;

/**
 * Raw HTML inside Markdown (a centred logo, a `<table>`, `<details>`) is read as HTML, through the
 * light DOM that HTML pages are walked in (linkedom's costs ~7× more to build and Readability, which
 * needs it, has no part here).
 */
function readHtmlBlock(html: string, builder: DocumentBuilder, ctx: ParseContext): void {
  if (ONLY_COMMENTS.test(html)) return;
  assertHtmlDepth(html, ctx.limits.maxNestingDepth, ctx.fileName);
  let document: ReturnType<typeof parseLightHtmlDocument>;
  try {
    document = parseLightHtmlDocument(`<!doctype html><html><body>${html}</body></html>`);
  } catch {
    builder.warn('an HTML block could not be read and was skipped');
    return;
  }
  if (document.body) walkHtml(document.body, builder);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
