import { z } from 'zod';
import { passageOf } from '../knowledge/passage.js';
import type { SearchHit } from '../knowledge/search.js';
import { documentUri } from './mcpContext.js';

/** A cited or found passage, as the Retrieval API gives it (snake_case), with its document's URI. */
export const passageShape = {
  doc_id: z.string(),
  uri: z.string().describe('The document as an MCP resource'),
  title: z.string(),
  source: z.string().describe('Upload path (<section>/<file name>) or URL'),
  section: z.string(),
  score: z.number(),
  chunk_id: z.string(),
  section_path: z.array(z.string()).describe('Headings enclosing the excerpt, outermost first'),
  page_start: z.number().int().describe('First page of the passage (1 for formats without pages)'),
  page_end: z.number().int(),
  excerpt: z.object({
    text: z.string().describe('About 200 characters of the passage around the query or the cited words'),
    start: z.number().int(),
    end: z.number().int(),
  }),
};

export type Passage = z.infer<z.ZodObject<typeof passageShape>>;

const round = (score: number): number => Math.round(score * 1e6) / 1e6;

/** A hit as a passage, its excerpt around `focus` (the query, or the words of an answer citing it). */
export function passage(hit: SearchHit, focus: string): Passage {
  const where = passageOf(hit, focus) as Pick<
    Passage,
    'chunk_id' | 'section_path' | 'page_start' | 'page_end' | 'excerpt'
  >;
  return {
    doc_id: hit.document.id,
    uri: documentUri(hit.document.id),
    title: hit.document.title,
    source: hit.document.source,
    section: hit.document.section,
    score: round(hit.score),
    ...where,
  };
}

/** Where a passage stands, for a reader: its pages and the headings around it. */
function placeOf(passage: Passage): string {
  const pages =
    passage.page_end !== passage.page_start
      ? `pp. ${passage.page_start}–${passage.page_end}`
      : `p. ${passage.page_start}`;
  const headings = passage.section_path.length > 0 ? `, § ${passage.section_path.join(' › ')}` : '';
  return `${pages}${headings}`;
}

/** A passage as lines of text: `label` title (place), then its document and its excerpt. */
export function passageText(label: string, passage: Passage): string {
  return [
    `${label} ${passage.title || passage.doc_id} (${placeOf(passage)})`,
    `    document ${passage.doc_id} · ${passage.uri}`,
    `    “${passage.excerpt.text.replace(/\s+/g, ' ').trim()}”`,
  ].join('\n');
}
