import { wordSet } from './input.js';

/** Elements that are empty in HTML anyway: `<br/>` needs no rewriting. */
const VOID = wordSet('area base br col embed hr img input keygen link meta param source track wbr');

/**
 * XHTML pages (DocBook XSL writes them) close empty elements XML-style: `<a id="x"/>`. An HTML parser
 * ignores the slash on a non-void element, so that anchor stays open and swallows the rest of the
 * page as link text — Readability then drops every section title as a link-heavy block. For a page
 * that says it is XHTML (an XML declaration or the XHTML namespace), `<tag …/>` of a non-void
 * element becomes `<tag …></tag>`, as an XML parser would read it. Other pages are left as they are.
 */
export function closeXhtmlEmptyElements(html: string): string {
  const head = html.slice(0, 2048);
  const isXhtml =
    /^\s*<\?xml\b/i.test(head) ||
    /<html\b[^>]*xmlns\s*=\s*["']http:\/\/www\.w3\.org\/1999\/xhtml["']/i.test(head);
  if (!isXhtml) return html;
  return html.replace(
    /<([a-zA-Z][\w:-]*)(\s[^<>]*?)?\/>/g,
    (whole, name: string, attributes: string | undefined) =>
      VOID.has(name.toLowerCase()) ? whole : `<${name}${attributes ?? ''}></${name}>`,
  );
}
