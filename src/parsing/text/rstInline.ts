/**
 * reStructuredText inline markup reduced to the text a reader sees: emphasis and literals lose
 * their markers, references keep their text (`` `Python <https://python.org>`_ `` → "Python"),
 * roles keep their content (`` :ref:`Setup <setup>` `` → "Setup"), footnote references keep their
 * label, backslash escapes are resolved. Literal spans are left exactly as written.
 */
export function rstInlineText(text: string): string {
  return text
    .split(/(``[^`]+``)/)
    .map((part, i) => (i % 2 === 1 ? part.slice(2, -2) : reduce(part)))
    .join('');
}

function reduce(text: string): string {
  return (
    text
      // :role:`content` and `content`:role:
      .replace(/:[\w.+-]+(?::[\w.+-]+)?:`([^`]+)`/g, (_, content: string) => targetText(content))
      .replace(/`([^`]+)`:[\w.+-]+:/g, (_, content: string) => targetText(content))
      // `text <target>`_ , `text`_ , `text`__ , `interpreted`
      .replace(/`([^`]+)`(?:__?)?/g, (_, content: string) => targetText(content))
      // footnote and citation references: [1]_ [#]_ [#note]_ [*]_ [CIT2002]_
      .replace(/\[([#*]?[\w.-]*)\]_/g, '[$1]')
      // substitution references |name| and |name|_
      .replace(/\|(\S(?:[^|]*\S)?)\|(?:__?)?/g, '$1')
      .replace(/\*\*(\S(?:[^*]*?\S)?)\*\*/g, '$1')
      .replace(/(^|[^\w*\\])\*(\S(?:[^*]*?\S)?)\*(?![\w*])/g, '$1$2')
      // simple references: word_ and word__ (but not snake_case words inside text)
      .replace(/\b([A-Za-z0-9][\w.-]*?)__?(?=$|[\s.,;:!?)\]'"])/g, '$1')
      .replace(/\\ /g, '')
      .replace(/\\(.)/g, '$1')
  );
}

/** "Title <target>" → "Title"; a bare "<target>" keeps the target. */
function targetText(content: string): string {
  const match = /^([\s\S]*?)\s*<([^<>]+)>$/.exec(content);
  if (!match) return content;
  const label = (match[1] ?? '').trim();
  return label || (match[2] ?? '');
}
