import { availableParallelism } from 'node:os';
import {
  ConfigError,
  decimal,
  defineSettings,
  integer,
  list,
  text,
  type Env,
} from '../configuration/variable.js';
import { EMBEDDING_MODEL } from '../models/modelSettings.js';
import { allowEntryProblem } from '../scrape/addressPolicy.js';

const MAX_UPLOAD_BYTES = integer('MAX_UPLOAD_BYTES', {
  default: '52428800',
  min: 1_024,
  max: 10_737_418_240,
  meaning: 'Largest uploaded file (413 above).',
});
const UPLOAD_MAX_FILES = integer('UPLOAD_MAX_FILES', {
  default: '50',
  min: 1,
  max: 10_000,
  meaning: 'Most files one `/upload/bulk` request may carry (413 above).',
});
const PARSE_WORKERS = integer('PARSE_WORKERS', {
  default: '(number of cores)',
  min: 1,
  max: 64,
  meaning: 'Worker threads that parse documents (each parses one at a time).',
});
const PARSE_TIMEOUT_MS = integer('PARSE_TIMEOUT_MS', {
  default: '300000',
  min: 1_000,
  max: 3_600_000,
  meaning: 'Longest time one document may take to parse (OCR of scanned pages included).',
});
const PARSE_MAX_MEMORY_MB = integer('PARSE_MAX_MEMORY_MB', {
  default: '1024',
  min: 128,
  max: 65_536,
  meaning: 'Heap limit of each parse worker: a document needing more fails alone.',
});
const PARSE_MEMORY_BUDGET_MB = integer('PARSE_MEMORY_BUDGET_MB', {
  default: '(4 × MAX_UPLOAD_BYTES + 300 MB)',
  min: 1,
  max: 1_048_576,
  meaning:
    'Memory all documents parsed at once may take, and documents being ingested until they are stored. Each parse reserves its estimated cost first (from the file size, the ZIP parts it will inflate, pages, pixels); one estimated above the budget is refused at once (413), others wait their turn, or get 503 with `Retry-After` when the queue is full. An ingestion keeps its reservation until its document is stored.',
});
const PARSE_MAX_ROWS = integer('PARSE_MAX_ROWS', {
  default: '1048576',
  min: 1,
  max: 100_000_000,
  meaning: 'Most rows of a CSV file or an XLSX sheet (413 above), checked while reading.',
});
const PARSE_MAX_ROW_FIELDS = integer('PARSE_MAX_ROW_FIELDS', {
  default: '16384',
  min: 1,
  max: 1_000_000,
  meaning: 'Most fields in one CSV row or columns in an XLSX sheet (413 above), checked while reading.',
});
const PARSE_MAX_FIELD_CHARS = integer('PARSE_MAX_FIELD_CHARS', {
  default: '32767',
  min: 1,
  max: 1_073_741_824,
  meaning: 'Longest CSV field or XLSX cell, in characters (413 above), checked while reading.',
});
const VECTOR_EXACT_BELOW = integer('VECTOR_EXACT_BELOW', {
  default: '250000',
  min: 0,
  max: 100_000_000,
  meaning:
    'Below this many vectors the embedded index scans them all (int8 SIMD, exact rescoring); from it on, it builds an HNSW graph (usearch) in a worker thread, saves it under DATA_DIR and searches it once built.',
});
const VECTOR_SCAN_THREAD_FROM = integer('VECTOR_SCAN_THREAD_FROM', {
  default: '20000',
  min: 0,
  max: 100_000_000,
  meaning:
    "From this many vectors an embedded collection's scan runs in worker threads holding an int8 copy of its vectors (one thread per 131,072 vectors, up to one per core, at most 4), so a search's vector half uses other cores; 0 keeps every scan on the main thread.",
});
const SEARCH_LEXICAL_WEIGHT = decimal('SEARCH_LEXICAL_WEIGHT', {
  default: '1',
  min: 0,
  max: 10,
  meaning:
    'Weight of the lexical (BM25) ranking in the reciprocal rank fusion of `/search` and `/query`, from 0 to 10; 0 leaves the lexical index out.',
});
const SEARCH_DENSE_WEIGHT = decimal('SEARCH_DENSE_WEIGHT', {
  default: '(1 with EMBEDDING_MODEL, 0.01 with the local embedder)',
  min: 0,
  max: 10,
  meaning:
    'Weight of the dense (vector) ranking in the fusion, from 0 to 10; 0 leaves the vector index and the embedder out of searches. The local hashed embedder knows no synonyms: weighed like BM25 it made retrieval worse on the retrieval evaluation, as a tie-breaker and a fallback for words BM25 misses it made it better (docs/benchmarks.md).',
});
const SCRAPE_ALLOWED_HOSTS = list('SCRAPE_ALLOWED_HOSTS', {
  default: '(empty)',
  problemOf: allowEntryProblem,
  meaning:
    'Comma-separated host names and CIDRs scraping may reach although private or loopback (intranets, tests), e.g. `127.0.0.1,10.0.0.0/8`.',
});
const SCRAPE_MAX_BYTES = integer('SCRAPE_MAX_BYTES', {
  default: '20971520',
  min: 1_024,
  max: 1_073_741_824,
  meaning: 'Largest page or file a scrape downloads.',
});
const SCRAPE_MAX_REDIRECTS = integer('SCRAPE_MAX_REDIRECTS', {
  default: '5',
  min: 0,
  max: 20,
  meaning: 'Redirects a scrape follows (each hop checked again).',
});
const SCRAPE_USER_AGENT = text('SCRAPE_USER_AGENT', {
  default: 'Archivist/1.0 (+scraper)',
  meaning: 'User-Agent header of scrape requests.',
});
const ZIP_MAX_ENTRIES = integer('ZIP_MAX_ENTRIES', {
  default: '1000',
  min: 1,
  max: 1_000_000,
  meaning: 'Most entries an uploaded ZIP archive may hold.',
});
const ZIP_MAX_TOTAL_BYTES = integer('ZIP_MAX_TOTAL_BYTES', {
  default: '524288000',
  min: 1_024,
  max: 107_374_182_400,
  meaning: 'Most bytes an uploaded ZIP archive may extract to in all (each file: MAX_UPLOAD_BYTES).',
});
const ZIP_MAX_RATIO = integer('ZIP_MAX_RATIO', {
  default: '100',
  min: 2,
  max: 100_000,
  meaning: 'Highest uncompressed/compressed ratio of one ZIP entry.',
});

/** What may be ingested and how parsing is bounded, how search weighs its two sides, what may be scraped. */
export const knowledgeSettings = defineSettings(
  [
    MAX_UPLOAD_BYTES,
    UPLOAD_MAX_FILES,
    PARSE_WORKERS,
    PARSE_TIMEOUT_MS,
    PARSE_MAX_MEMORY_MB,
    PARSE_MEMORY_BUDGET_MB,
    PARSE_MAX_ROWS,
    PARSE_MAX_ROW_FIELDS,
    PARSE_MAX_FIELD_CHARS,
    VECTOR_EXACT_BELOW,
    VECTOR_SCAN_THREAD_FROM,
    SEARCH_LEXICAL_WEIGHT,
    SEARCH_DENSE_WEIGHT,
    SCRAPE_ALLOWED_HOSTS,
    SCRAPE_MAX_BYTES,
    SCRAPE_MAX_REDIRECTS,
    SCRAPE_USER_AGENT,
    ZIP_MAX_ENTRIES,
    ZIP_MAX_TOTAL_BYTES,
    ZIP_MAX_RATIO,
  ],
  (env) => {
    const maxUploadBytes = MAX_UPLOAD_BYTES.read(env);
    // The memory goal for parsing is that the server grows by at most 4× the input plus 300 MB: for
    // the largest upload allowed, that is what all parses at once may reserve by default.
    const defaultBudgetMb = Math.ceil((4 * maxUploadBytes) / (1024 * 1024)) + 300;
    return {
      maxUploadBytes,
      uploadMaxFiles: UPLOAD_MAX_FILES.read(env),
      parseWorkers: PARSE_WORKERS.read(env, Math.max(1, Math.min(availableParallelism(), 8))),
      parseTimeoutMs: PARSE_TIMEOUT_MS.read(env),
      parseMaxMemoryMb: PARSE_MAX_MEMORY_MB.read(env),
      /** Memory all parses running at once may reserve (their estimated costs), in bytes. */
      parseMemoryBudgetBytes: PARSE_MEMORY_BUDGET_MB.read(env, defaultBudgetMb) * 1024 * 1024,
      parseMaxRows: PARSE_MAX_ROWS.read(env),
      parseMaxRowFields: PARSE_MAX_ROW_FIELDS.read(env),
      parseMaxFieldChars: PARSE_MAX_FIELD_CHARS.read(env),
      vectorExactBelow: VECTOR_EXACT_BELOW.read(env),
      vectorScanThreadFrom: VECTOR_SCAN_THREAD_FROM.read(env),
      searchWeights: searchWeights(env),
      scrapeAllowedHosts: SCRAPE_ALLOWED_HOSTS.read(env),
      scrapeMaxBytes: SCRAPE_MAX_BYTES.read(env),
      scrapeMaxRedirects: SCRAPE_MAX_REDIRECTS.read(env),
      scrapeUserAgent: SCRAPE_USER_AGENT.read(env),
      zipMaxEntries: ZIP_MAX_ENTRIES.read(env),
      zipMaxTotalBytes: ZIP_MAX_TOTAL_BYTES.read(env),
      zipMaxRatio: ZIP_MAX_RATIO.read(env),
    };
  },
);

function searchWeights(env: Env): { lexical: number; dense: number } {
  const weights = {
    lexical: SEARCH_LEXICAL_WEIGHT.read(env),
    dense: SEARCH_DENSE_WEIGHT.read(env, EMBEDDING_MODEL.isSet(env) ? 1 : 0.01),
  };
  if (weights.lexical === 0 && weights.dense === 0) {
    throw new ConfigError(
      'SEARCH_LEXICAL_WEIGHT and SEARCH_DENSE_WEIGHT cannot both be 0: nothing would be searched',
    );
  }
  return weights;
}
