import { detectDocumentLanguage } from '../clean/language.js';
import type { ParsedDocument } from '../model.js';
import { chooseStrategy } from './analyse.js';
import { createChunkEngine } from './engine.js';
import type { ChunkingOptions, ChunkingResult, ChunkingStrategy } from './model.js';
import { resolveSizes } from './options.js';

/**
 * Chunks a (cleaned) document. `auto` analyses the structure and picks semantic, page or paragraph
 * (`stats.strategyUsed` says which); `semantic` follows headings; `page` gives one or more chunks per
 * page; `paragraph` packs blocks regardless of headings and pages; `disabled` gives the whole document
 * as one chunk — or, when it exceeds `maxWords`, as consecutive parts of at most `maxWords` marked as
 * continuations, since no chunk may exceed the maximum. Pure and deterministic: the same document and
 * options give the same chunks and ids.
 */
export function chunkDocument(document: ParsedDocument, options: ChunkingOptions): ChunkingResult {
  const sizes = resolveSizes(options);
  const strategy: ChunkingStrategy =
    options.mode === 'auto' ? chooseStrategy(document, sizes).strategy : options.mode;
  const engine = createChunkEngine({
    strategy,
    ...sizes,
    documentId: options.documentId,
    documentLanguage: document.metadata.language ?? detectDocumentLanguage(document),
  });
  const chunks = document.blocks.flatMap((block) => engine.add(block));
  chunks.push(...engine.finish());
  for (const chunk of chunks) chunk.totalChunks = chunks.length;
  const pages = Math.max(document.pages.length, document.metadata.numPages);
  return { chunks, stats: engine.stats(pages) };
}
