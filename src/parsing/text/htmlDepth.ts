import { ParseError } from '../errors.js';
import { wordSet } from './input.js';

/** Elements that never have content: they never nest. */
const VOID = wordSet('area base br col embed hr img input keygen link meta param source track wbr');
/**
 * Elements whose end tag may be omitted: the parser closes them implicitly (`<p><p>` are siblings),
 * so counting them would see depth that the DOM does not have.
 */
const IMPLIED_END = wordSet(`
  html head body p li dt dd tr td th thead tbody tfoot colgroup caption option optgroup rb rt rtc
  rp
`);
/** Raw-text elements: their content is not markup, whatever it looks like. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'plaintext']);
/** Inside these, `<x/>` closes itself (foreign content), as the parser treats it. */
const FOREIGN = new Set(['svg', 'math']);

/**
 * Measures how deep the elements of an HTML string nest without building a DOM, and throws
 * `too_complex` past `maxDepth`. Building and then walking a 100,000-deep tree would take long
 * and overflow recursive walkers (ours and Readability's); this scan is linear and stops early.
 * It mirrors the parser closely enough: void and implied-end elements are not counted, a stray
 * end tag is ignored, an end tag closes everything opened after its start tag.
 */
export function assertHtmlDepth(html: string, maxDepth: number, fileName: string): void {
  const stack: string[] = [];
  let foreignDepth = 0;
  let position = 0;
  let lower: string | null = null;
  const length = html.length;
  while (position < length) {
    const open = html.indexOf('<', position);
    if (open < 0 || open + 1 >= length) return;
    const next = html.charCodeAt(open + 1);
    if (next === 0x21 /* ! */) {
      position = html.startsWith('<!--', open) ? endOf(html, '-->', open + 4) : endOf(html, '>', open + 2);
      continue;
    }
    if (next === 0x3f /* ? */) {
      position = endOf(html, '>', open + 2);
      continue;
    }
    const closing = next === 0x2f; /* / */
    const nameStart = closing ? open + 2 : open + 1;
    const name = readName(html, nameStart);
    if (name === '') {
      position = open + 1; // "a < b": text
      continue;
    }
    const tagEnd = findTagEnd(html, nameStart + name.length);
    if (tagEnd < 0) return;
    position = tagEnd + 1;
    const tag = name.toLowerCase();

    if (closing) {
      const at = stack.lastIndexOf(tag);
      if (at >= 0) {
        for (let i = stack.length - 1; i >= at; i -= 1) if (FOREIGN.has(stack[i] ?? '')) foreignDepth -= 1;
        stack.length = at;
      }
      continue;
    }
    const selfClosing = html.charCodeAt(tagEnd - 1) === 0x2f;
    if (VOID.has(tag) || IMPLIED_END.has(tag) || (selfClosing && (foreignDepth > 0 || FOREIGN.has(tag))))
      continue;
    if (RAW_TEXT.has(tag)) {
      lower ??= html.toLowerCase();
      const end = lower.indexOf(`</${tag}`, position);
      position = end < 0 ? length : end;
      continue;
    }
    stack.push(tag);
    if (FOREIGN.has(tag)) foreignDepth += 1;
    if (stack.length > maxDepth) {
      throw new ParseError(
        'too_complex',
        `${fileName}: HTML elements nest more than ${maxDepth} levels deep (maxNestingDepth)`,
      );
    }
  }
}

function endOf(html: string, terminator: string, from: number): number {
  const at = html.indexOf(terminator, from);
  return at < 0 ? html.length : at + terminator.length;
}

function readName(html: string, start: number): string {
  const first = html.charCodeAt(start);
  const isLetter = (first >= 0x41 && first <= 0x5a) || (first >= 0x61 && first <= 0x7a);
  if (!isLetter) return '';
  let end = start + 1;
  while (end < html.length) {
    const code = html.charCodeAt(end);
    if (
      code === 0x20 ||
      code === 0x09 ||
      code === 0x0a ||
      code === 0x0d ||
      code === 0x0c ||
      code === 0x2f ||
      code === 0x3e
    )
      break;
    end += 1;
  }
  return html.slice(start, end);
}

/**
 * Index of the `>` ending a tag, skipping quoted attribute values (a quote opens one only right
 * after `=`, as in the parser); -1 if the tag never ends.
 */
function findTagEnd(html: string, from: number): number {
  let quote = 0;
  let afterEquals = false;
  for (let i = from; i < html.length; i += 1) {
    const code = html.charCodeAt(i);
    if (quote !== 0) {
      if (code === quote) quote = 0;
      continue;
    }
    if (code === 0x3e) return i;
    if ((code === 0x22 || code === 0x27) && afterEquals) quote = code;
    if (code === 0x3d) afterEquals = true;
    else if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) afterEquals = false;
  }
  return -1;
}
