import type { Block } from '../model.js';
import { createChunkEngine } from './engine.js';
import type { Chunk, ChunkingOptions, ChunkingResult } from './model.js';
import { resolveSizes } from './options.js';

export interface IncrementalChunker {
  /**
   * Adds the blocks of the next page; returns the chunks that are final now. A chunk is final when
   * the size budget or a heading closes it; with the semantic strategy the last chunk of a section
   * waits for the next section (it may absorb it when that one is tiny, see engine.ts). The total is
   * known only at the end: these chunks carry the running count (chunks emitted so far, this batch
   * included) as `totalChunks`.
   */
  push(pageBlocks: readonly Block[]): Chunk[];
  /** Closes the stream: the remaining chunks (with the exact `totalChunks`) and the final statistics. */
  finish(): ChunkingResult;
}

export interface IncrementalChunkingOptions extends ChunkingOptions {
  /** Language of chunks too short to detect, when known in advance. */
  documentLanguage?: string | null;
}

/**
 * Chunks a document page by page, for `/parse/sections/incremental`. `auto` cannot look at the whole
 * document first, so it chunks by headings as they come (semantic) and reports `semantic` when headings
 * were found, `paragraph` when none were (the two coincide without headings). Other modes behave as in
 * `chunkDocument`; chunks of a short-text fallback language take the last language detected.
 */
export function createIncrementalChunker(options: IncrementalChunkingOptions): IncrementalChunker {
  const sizes = resolveSizes(options);
  const strategy = options.mode === 'auto' ? 'semantic' : options.mode;
  const engine = createChunkEngine({
    strategy,
    ...sizes,
    documentId: options.documentId,
    documentLanguage: options.documentLanguage ?? null,
  });
  let pages = 0;
  let finished = false;
  return {
    push(pageBlocks) {
      if (finished) throw new Error('the incremental chunker is finished');
      pages += 1;
      const ready = pageBlocks.flatMap((block) => engine.add(block));
      for (const chunk of ready) chunk.totalChunks = engine.chunkCount();
      return ready;
    },
    finish() {
      if (finished) throw new Error('the incremental chunker is finished');
      finished = true;
      const chunks = engine.finish();
      for (const chunk of chunks) chunk.totalChunks = engine.chunkCount();
      const used = options.mode === 'auto' && engine.headingCount() === 0 ? 'paragraph' : strategy;
      return { chunks, stats: engine.stats(pages, used) };
    },
  };
}
