import { excerptAt, excerptOf } from '../text/excerpt.js';
import type { SearchHit } from './search.js';

/**
 * Where a cited passage stands, as every source of an answer, a search result and a chat citation
 * give it (snake_case, as the wire): its chunk, the headings enclosing the excerpt, its pages, and an
 * excerpt of about 200 characters around `focus` (the query's terms, or the words of the answer that
 * cite it) with its offsets in the chunk's text — enough for a reader to check the passage without
 * opening the document. Formats without pages are one page.
 */
export function passageOf(hit: SearchHit, focus: string): Record<string, unknown> {
  // What an answer quotes word for word is found where it stands; anything else by its terms.
  const quoted = focus.length >= 12 ? hit.chunk.text.indexOf(focus) : -1;
  const excerpt = quoted >= 0 ? excerptAt(hit.chunk.text, quoted) : excerptOf(hit.chunk.text, focus);
  return {
    chunk_id: hit.chunk.id,
    section_path: sectionPathAt(hit.chunk, excerpt.focus),
    page_start: hit.chunk.pageStart,
    page_end: hit.chunk.pageEnd,
    excerpt: { text: excerpt.text, start: excerpt.start, end: excerpt.end },
  };
}

/**
 * The focus of source `index` (0-based) of an answer: the first words of the answer that cite it —
 * the text before the first run of citation marks (`… [2] [1].`) that names it — so that its excerpt
 * shows what the answer took from it first; the question when the answer does not cite it.
 */
export function citedFocus(answer: string, index: number, question: string): string {
  const parts = answer.split(/((?:\s*\[\d+\])+)/);
  for (let at = 1; at < parts.length; at += 2) {
    const marks = [...parts[at]!.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]) - 1);
    if (marks.includes(index)) return parts[at - 1]!.replace(/^[\s.!?؟]+/, '').trim();
  }
  return question;
}

const HEADING_LINE = /^(#{1,6})\s+(.+?)[\s#]*$/;
const FENCE = /^\s*(?:```|~~~)/;

/**
 * The headings enclosing `offset` of a chunk's text. A chunk may hold small sections after its own
 * (the chunker merges sibling sections and names the chunk by their parent): their heading lines,
 * deeper than the chunk's own heading and outside code blocks, extend its section path up to the
 * offset's line.
 */
export function sectionPathAt(
  chunk: { text: string; sectionPath: readonly string[]; headingLevel: number },
  offset: number,
): string[] {
  const inner: Array<{ level: number; text: string }> = [];
  let inCode = false;
  const lineEnd = chunk.text.indexOf('\n', offset);
  for (const line of chunk.text.slice(0, lineEnd < 0 ? chunk.text.length : lineEnd).split('\n')) {
    if (FENCE.test(line)) inCode = !inCode;
    const match = inCode ? null : HEADING_LINE.exec(line);
    if (!match || match[1]!.length <= chunk.headingLevel) continue;
    const level = match[1]!.length;
    while (inner.length > 0 && inner[inner.length - 1]!.level >= level) inner.pop();
    inner.push({ level, text: match[2]! });
  }
  return [...chunk.sectionPath, ...inner.map((heading) => heading.text)];
}

/** The schema of `passageOf`'s fields, for the routes and tools that return them. */
export const PASSAGE_PROPERTIES = {
  chunk_id: { type: 'string' },
  section_path: {
    type: 'array',
    items: { type: 'string' },
    description: 'Headings enclosing the excerpt, outermost first',
  },
  page_start: { type: 'integer', description: 'First page of the passage (1 for formats without pages)' },
  page_end: { type: 'integer' },
  excerpt: {
    type: 'object',
    required: ['text', 'start', 'end'],
    properties: {
      text: {
        type: 'string',
        description:
          'About 200 characters of the chunk around the query terms, or around what the answer quotes',
      },
      start: { type: 'integer', description: 'Offset of the excerpt in the chunk text (UTF-16 units)' },
      end: { type: 'integer', description: 'Offset just after it' },
    },
  },
} as const;
