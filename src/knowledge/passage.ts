import { excerptOf } from '../text/excerpt.js';
import type { SearchHit } from './search.js';

/**
 * Where a cited passage stands, as every source of an answer, a search result and a chat citation
 * give it (snake_case, as the wire): its chunk, its section path, its pages, and an excerpt of about 200 characters around the query's terms with its offsets
 * in the chunk's text — enough for a reader to check the passage without opening the document.
 * Formats without pages are one page.
 */
export function passageOf(hit: SearchHit, query: string): Record<string, unknown> {
  const excerpt = excerptOf(hit.chunk.text, query);
  return {
    chunk_id: hit.chunk.id,
    section_path: hit.chunk.sectionPath,
    page_start: hit.chunk.pageStart,
    page_end: hit.chunk.pageEnd,
    excerpt: { text: excerpt.text, start: excerpt.start, end: excerpt.end },
  };
}

/** The schema of `passageOf`'s fields, for the routes and tools that return them. */
export const PASSAGE_PROPERTIES = {
  chunk_id: { type: 'string' },
  section_path: { type: 'array', items: { type: 'string' } },
  page_start: { type: 'integer', description: 'First page of the passage (1 for formats without pages)' },
  page_end: { type: 'integer' },
  excerpt: {
    type: 'object',
    required: ['text', 'start', 'end'],
    properties: {
      text: { type: 'string', description: 'About 200 characters of the chunk around the query terms' },
      start: { type: 'integer', description: 'Offset of the excerpt in the chunk text (UTF-16 units)' },
      end: { type: 'integer', description: 'Offset just after it' },
    },
  },
} as const;
