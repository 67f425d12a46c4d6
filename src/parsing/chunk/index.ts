export { chunkDocument } from './chunkDocument.js';
export {
  createIncrementalChunker,
  type IncrementalChunker,
  type IncrementalChunkingOptions,
} from './incremental.js';
export { analyseStructure, chooseStrategy, type StructureAnalysis } from './analyse.js';
export {
  DEFAULT_MAX_WORDS,
  DEFAULT_TARGET_WORDS,
  type Chunk,
  type ChunkingMode,
  type ChunkingOptions,
  type ChunkingResult,
  type ChunkingStats,
  type ChunkingStrategy,
} from './model.js';
