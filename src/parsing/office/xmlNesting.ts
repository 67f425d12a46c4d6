/**
 * Markup that cannot be XML: comments, CDATA sections, processing instructions and declarations are
 * skipped whole (a `<b>` inside them is no tag); a tag's attribute values may hold `>` and `/`.
 * Nothing inside a tag may be `<` (XML forbids it in attribute values too), so a tag that fails to
 * match is given up at the next `<` and the pass stays linear on any input; a `<` that starts none
 * of these (group 4) is broken markup, as XML text must write it `&lt;`.
 * Groups: 1 the closing slash, 2 the name, 3 the self-closing slash, 4 a stray `<`.
 */
const MARKUP =
  /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<![^<>]*>|<(\/?)([^\s/<>]+)(?:[^<>"'/]|"[^<"]*"|'[^<']*'|\/(?!>))*(\/?)>|(<)/g;

/**
 * Why the element nesting of `xml` is broken — a tag never closed, closed by another name's end tag,
 * an end tag with nothing open, or a `<` that starts no tag — or `null` when every element is
 * closed in order.
 *
 * fast-xml-parser, which reads the office parts, repairs such input silently (`<w:p><w:t>x</w:p>`
 * comes out as a complete paragraph, a part cut off mid-way as a shorter one), so a damaged file
 * would be parsed into a plausible but wrong document. One regular-expression pass over the tags
 * costs ~5 % of the parse (a 5.7 MB document part: 25 ms against ~550 ms); a full validation pass
 * (the library's XMLValidator) cost ~25 %.
 */
export function nestingError(xml: string): string | null {
  const open: Array<{ name: string; at: number }> = [];
  MARKUP.lastIndex = 0;
  for (let match = MARKUP.exec(xml); match !== null; match = MARKUP.exec(xml)) {
    const [, closing, name, selfClosing, stray] = match;
    if (stray) return `the "<" at ${where(xml, match.index)} starts no well-formed tag`;
    if (name === undefined || selfClosing === '/') continue;
    if (closing !== '/') {
      open.push({ name, at: match.index });
      continue;
    }
    const innermost = open.pop();
    if (!innermost) return `the end tag </${name}> at ${where(xml, match.index)} closes no open element`;
    if (innermost.name !== name) {
      return `<${innermost.name}> opened at ${where(xml, innermost.at)} is closed by </${name}> at ${where(xml, match.index)}`;
    }
  }
  const unclosed = open.at(-1);
  return unclosed ? `<${unclosed.name}> opened at ${where(xml, unclosed.at)} is never closed` : null;
}

/** "line L, column C" (1-based) of an offset; only computed for the error message. */
function where(xml: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = xml.indexOf('\n'); i !== -1 && i < offset; i = xml.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}
