/**
 * The chunk packer: blocks go in one at a time (in reading order), finished chunks come out. Both
 * `chunkDocument` and the incremental chunker drive it, so a document chunked whole or page by page
 * gives the same chunks.
 *
 * Packing: pieces (see pieces.ts) are added to the open chunk while it stays within `targetWords`;
 * a chunk under a quarter of the target may grow past it up to `maxWords` rather than be closed tiny;
 * a chunk holding only headings always takes the next piece (a heading never ends a chunk). Each
 * piece has at most `targetWords` words and a chunk never passes `maxWords`.
 *
 * Semantic strategy: every heading closes the open chunk, except when that chunk holds nothing but
 * headings and the new heading is deeper — an empty parent section is carried into its first child
 * ("# Part I / ## Intro / text" is one chunk with path Part I > Intro, which is honest: the parent
 * heading is an ancestor of everything in it). Tiny sections (a whole section under a fifth of the
 * target) are merged into the previous chunk only when the result stays within the target and the
 * tiny section is a child or a sibling of the previous chunk's section; the merged chunk's path is
 * the part of the two paths they share (the parent, for siblings), so the path names a section that
 * really contains all of the chunk — never a sibling that does not — and loses at most one level.
 * Siblings directly under the document root are not merged: their honest shared path would be
 * empty. Because of this merge, the last chunk of a section is released only when the next section
 * has shown it is not tiny (or at the end).
 */
import { countWords, splitByWords } from '../../text/words.js';
import { detectLanguage } from '../clean/language.js';
import type { Block } from '../model.js';
import type { Chunk, ChunkingStats, ChunkingStrategy } from './model.js';
import { blockToPieces, type Piece } from './pieces.js';

export interface EngineOptions {
  strategy: ChunkingStrategy;
  targetWords: number;
  maxWords: number;
  documentId: string;
  /**
   * Fallback language of chunks too short to detect; a chunk whose first words are in it is taken
   * to be in it (see `detectLanguage`).
   */
  documentLanguage: string | null;
}

export interface ChunkEngine {
  /** Adds the next block; returns chunks finished by it. */
  add(block: Block): Chunk[];
  /** Closes everything; returns the remaining chunks. */
  finish(): Chunk[];
  /** Statistics so far (final after `finish`). */
  stats(pagesProcessed: number, strategyUsed?: ChunkingStrategy): ChunkingStats;
  /** Headings met so far. */
  headingCount(): number;
  /** Chunks emitted so far. */
  chunkCount(): number;
}

interface PathEntry {
  text: string;
  level: number;
  id: string;
}

interface Draft {
  pieces: Piece[];
  words: number;
  path: PathEntry[];
  isContinuation: boolean;
  /** True while every piece is a heading line. */
  headingsOnly: boolean;
}

const TINY_SECTION_SHARE = 0.2;
const SMALL_CHUNK_SHARE = 0.25;

export function createChunkEngine(options: EngineOptions): ChunkEngine {
  const { strategy, documentId } = options;
  const maxWords = Math.max(1, Math.floor(options.maxWords));
  const targetWords =
    strategy === 'disabled' ? maxWords : Math.max(1, Math.min(maxWords, Math.floor(options.targetWords)));
  const tinySection = Math.floor(targetWords * TINY_SECTION_SHARE);

  const stack: PathEntry[] = [];
  const distribution: Record<number, number> = {};
  let headings = 0;
  let preambleHasContent = false;
  let totalWords = 0;
  let emitted = 0;
  let emittedWords = 0;
  let lastLanguage: string | null = null;

  let open: Draft | null = null;
  // Chunks already closed in the current section (semantic) or on the current page (page).
  let sectionChunks = 0;
  // Semantic: the last chunk of the previous section, kept until the next section shows it is not tiny.
  let held: Draft | null = null;
  let currentPage = Number.NaN;
  let out: Chunk[] = [];

  const startDraft = (first: Piece): Draft => {
    let isContinuation: boolean;
    if (strategy === 'semantic') isContinuation = stack.length > 0 ? sectionChunks > 0 : first.continuesBlock;
    else if (strategy === 'page') isContinuation = sectionChunks > 0;
    else if (strategy === 'disabled') isContinuation = emitted > 0;
    else isContinuation = first.continuesBlock;
    return { pieces: [], words: 0, path: [...stack], isContinuation, headingsOnly: true };
  };

  const emit = (draft: Draft): void => {
    const content = draft.pieces.map((piece) => piece.text).join('\n\n');
    const language =
      detectLanguage(content, { expected: options.documentLanguage }) ??
      options.documentLanguage ??
      lastLanguage ??
      'unknown';
    if (language !== 'unknown') lastLanguage = language;
    const innermost = draft.path[draft.path.length - 1];
    const pages = draft.pieces.map((piece) => piece.page);
    const wordCount = wordsOfContent(draft.pieces, content);
    out.push({
      chunkId: `${documentId}:${emitted}`,
      content,
      sectionPath: draft.path.map((entry) => entry.text),
      heading: innermost?.text ?? '',
      headingLevel: innermost?.level ?? 0,
      pageStart: Math.min(...pages),
      pageEnd: Math.max(...pages),
      tables: draft.pieces.flatMap((piece) => (piece.table ? [piece.table] : [])),
      images: draft.pieces.flatMap((piece) => (piece.image ? [piece.image] : [])),
      chunkIndex: emitted,
      totalChunks: emitted + 1,
      wordCount,
      parentSectionId: innermost?.id ?? null,
      language,
      isContinuation: draft.isContinuation,
    });
    emitted += 1;
    emittedWords += wordCount;
  };

  /** Closes the open chunk; `endOfSection` when a heading or the end closed it (semantic merging). */
  const close = (endOfSection: boolean): void => {
    const draft = open;
    open = null;
    if (draft && draft.pieces.length > 0) {
      if (strategy !== 'semantic' || !endOfSection) {
        if (held) emit(held);
        held = null;
        emit(draft);
        sectionChunks += 1;
      } else if (held && sectionChunks === 0 && draft.words < tinySection && mergeable(held, draft)) {
        held = { ...held, pieces: [...held.pieces, ...draft.pieces], words: held.words + draft.words };
        held.path = sharedPath(held.path, draft.path);
      } else {
        if (held) emit(held);
        held = draft;
      }
    }
    if (endOfSection) sectionChunks = 0;
  };

  // A tiny section joins the previous chunk if the result fits the target and its path stays honest
  // and useful: the shared path may drop at most the previous chunk's innermost heading (the tiny
  // section is its child or its sibling), and never becomes empty.
  const mergeable = (previous: Draft, tiny: Draft): boolean => {
    const shared = sharedPath(previous.path, tiny.path);
    return (
      previous.words + tiny.words <= targetWords &&
      shared.length > 0 &&
      shared.length >= previous.path.length - 1
    );
  };

  const fits = (draft: Draft, piece: Piece): boolean => {
    const words = draft.words + piece.words;
    if (words > maxWords) return false;
    if (draft.headingsOnly || words <= targetWords) return true;
    return draft.words < targetWords * SMALL_CHUNK_SHARE;
  };

  const place = (piece: Piece): void => {
    if (open && open.pieces.length > 0 && !fits(open, piece)) close(false);
    open ??= startDraft(piece);
    open.pieces.push(piece);
    open.words += piece.words;
    open.headingsOnly &&= piece.heading !== null;
  };

  const addPiece = (piece: Piece): void => {
    if (open && open.pieces.length > 0 && !fits(open, piece)) {
      // Headings at the end of a full chunk move on with the text they introduce.
      const start = trailingHeadingsStart(open.pieces);
      const carried = start > 0 ? open.pieces.splice(start) : [];
      open.words -= carried.reduce((sum, p) => sum + p.words, 0);
      close(false);
      for (const heading of carried) place(heading);
    }
    place(piece);
  };

  const onHeading = (text: string, level: number): void => {
    headings += 1;
    distribution[level] = (distribution[level] ?? 0) + 1;
    if (strategy === 'semantic') {
      const parent = stack[stack.length - 1];
      if (!(open?.headingsOnly && parent !== undefined && level > parent.level)) close(true);
    }
    while (stack.length > 0 && (stack[stack.length - 1]?.level ?? 0) >= level) stack.pop();
    stack.push({ text, level, id: `${documentId}:s${headings - 1}` });
    // A chunk carrying only headings takes the path of the deepest one.
    if (open?.headingsOnly) open.path = [...stack];
  };

  const drain = (): Chunk[] => {
    const ready = out;
    out = [];
    return ready;
  };

  return {
    add(block) {
      if (strategy === 'page' && block.page !== currentPage) {
        close(false);
        sectionChunks = 0;
        currentPage = block.page;
      }
      if (block.type === 'heading') onHeading(block.text, block.level);
      const { pieces, words } = blockToPieces(block, targetWords);
      totalWords += words;
      if (headings === 0 && words > 0) preambleHasContent = true;
      for (const piece of pieces) {
        for (const safe of withinMax(piece, maxWords)) addPiece(safe);
      }
      return drain();
    },
    finish() {
      close(true);
      if (held) emit(held);
      held = null;
      return drain();
    },
    stats(pagesProcessed, strategyUsed = strategy) {
      return {
        strategyUsed,
        totalChunks: emitted,
        sectionsFound: headings + (preambleHasContent ? 1 : 0),
        pagesProcessed,
        totalWords,
        headingDistribution: { ...distribution },
        avgChunkWords: emitted === 0 ? 0 : Math.round((emittedWords / emitted) * 10) / 10,
      };
    },
    headingCount: () => headings,
    chunkCount: () => emitted,
  };
}

/**
 * Words of a chunk's content. The blank lines joining its pieces cannot join or split words, so
 * the pieces' own counts add up to it — except a table's, which is counted from its cells (and the
 * rendered table may differ): recounting every chunk's text had cost as much as parsing it.
 */
function wordsOfContent(pieces: readonly Piece[], content: string): number {
  let words = 0;
  for (const piece of pieces) {
    if (piece.table) return countWords(content);
    words += piece.words;
  }
  return words;
}

/** Index where the run of heading pieces ending the list starts; 0 when all are headings or none trail. */
function trailingHeadingsStart(pieces: readonly Piece[]): number {
  let start = pieces.length;
  while (start > 0 && pieces[start - 1]?.heading) start -= 1;
  return start === pieces.length ? 0 : start;
}

function sharedPath(a: PathEntry[], b: PathEntry[]): PathEntry[] {
  const shared: PathEntry[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const entry = a[i];
    if (!entry || entry.id !== b[i]?.id) break;
    shared.push(entry);
  }
  return shared;
}

/** Last resort for the guarantee: a piece over the maximum (never expected) is cut by words. */
function withinMax(piece: Piece, maxWords: number): Piece[] {
  if (piece.words <= maxWords) return [piece];
  return splitByWords(piece.text, maxWords).map((text, i) => ({
    ...piece,
    text,
    words: countWords(text),
    heading: i === 0 ? piece.heading : null,
    table: i === 0 ? piece.table : null,
    image: i === 0 ? piece.image : null,
    continuesBlock: piece.continuesBlock || i > 0,
  }));
}
