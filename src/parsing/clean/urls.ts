/**
 * URL removal for `remove_urls`: http(s) and www addresses go, the text of a link stays, e-mail
 * addresses stay (they are contact data, not navigation noise).
 */

// Markdown-style links keep their text: "[the report](https://x.org/r.pdf)" → "the report".
const MARKDOWN_LINK = /\[([^\]\n]{1,500})\]\(\s*(?:https?:\/\/|www\.)[^)\s]*\s*\)/giu;
// A URL starts after white space, an opening bracket or quote, or at the start — never inside a word
// or an e-mail address ("info@www.example.org" is kept whole).
const URL_PATTERN = /(\s?)(?<![\p{L}\p{N}@._%+-])(?:https?:\/\/|www\.)[^\s<>"'`{}|\\^]+/giu;
// Punctuation that ends the sentence rather than the URL.
const TRAILING = /[.,;:!?؟،)\]»”’'"]+$/u;
// Brackets emptied by the removal: "see (https://x.org)" → "see".
const EMPTY_BRACKETS = /\s*(?:\(\s*\)|\[\s*\]|<\s*>)/g;

/** Removes http(s)/www URLs from `text`, keeping link text, e-mail addresses and sentence punctuation. */
export function removeUrls(text: string): string {
  if (!/https?:\/\/|www\./i.test(text)) return text;
  return text
    .replace(MARKDOWN_LINK, '$1')
    .replace(URL_PATTERN, (match: string, lead: string, offset: number, whole: string) => {
      const url = match.slice(lead.length);
      const trailing = unbalancedTail(url);
      const next = whole.charAt(offset + match.length);
      // Keep one separating space only when a word follows; punctuation closes up to the text before.
      const keepSpace = trailing === '' && lead.length > 0 && next !== '' && !/[\s.,;:!?؟،)\]]/u.test(next);
      return (keepSpace ? ' ' : '') + trailing;
    })
    .replace(EMPTY_BRACKETS, '')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** The sentence punctuation glued to the end of a matched URL (a ")" stays in the URL when it opened one). */
function unbalancedTail(url: string): string {
  const tail = TRAILING.exec(url)?.[0] ?? '';
  if (!tail.includes(')')) return tail;
  const body = url.slice(0, url.length - tail.length);
  const open = (body.match(/\(/g) ?? []).length - (body.match(/\)/g) ?? []).length;
  // Give back to the URL as many ")" as it has unclosed "(" (Wikipedia-style links).
  let kept = tail;
  for (let i = 0; i < open && kept.startsWith(')'); i += 1) kept = kept.slice(1);
  return kept;
}
