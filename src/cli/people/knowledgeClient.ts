/**
 * What the people's CLI (`archivist ingest`, `search`, `ask`) needs of the knowledge base: one port,
 * with an adapter that goes through a running server's Retrieval API and one that works in-process
 * on the local DATA_DIR. test/cli/knowledgeClient.contract.ts holds both to the same behaviour.
 */
export interface KnowledgeClient {
  /**
   * Starts ingesting the file at `path` under the upload path `name` (a file name, or a `/`-separated
   * path below a folder, so that same-named files of two folders stay two documents): a task to follow with
   * `progress`, or at once the outcome when the file is refused before any work (unsupported type,
   * over the upload limit, unreadable).
   */
  ingestFile(path: string, name: string, options: IngestTarget): Promise<IngestStart>;
  /** Starts fetching and ingesting a web page (or a document by URL). */
  ingestUrl(url: string, options: IngestTarget): Promise<IngestStart>;
  /**
   * An ingestion task's updates, in order, until its outcome (always the last). When the outcome is
   * `added`, the document is already searchable.
   */
  progress(taskId: string): AsyncIterable<IngestUpdate>;
  /** The best passages for `query`, best first. */
  search(query: string, options: SearchOptions): Promise<SearchResult[]>;
  /** An answer from the stored documents, with the passages it cites (numbered [n] in the answer). */
  ask(question: string, options: SearchOptions): Promise<AnswerWithCitations>;
  close(): Promise<void>;
}

export interface IngestTarget {
  /** The collection the document goes to (the server's default when absent). */
  collection?: string;
}

export type IngestStart = { taskId: string } | { outcome: IngestOutcome };

/** How one input ended: stored now, already stored, or not stored and why. */
export type IngestOutcome =
  | { status: 'added'; docId: string; title: string }
  | { status: 'duplicate'; docId: string | null; title: string | null; reason: string }
  | { status: 'failed'; reason: string };

export type IngestUpdate =
  | {
      kind: 'progress';
      /** Fraction done, 0–1. */
      fraction: number;
      /** What the task is doing, for people: `queued`, `started`, `parse: page 3 of 10` … */
      stage: string;
    }
  | { kind: 'finished'; outcome: IngestOutcome };

export interface SearchOptions {
  /** Most passages returned. */
  limit: number;
  /** Only documents of this collection. */
  collection?: string;
}

/** A stored passage, and where a reader finds it. */
export interface Passage {
  docId: string;
  title: string;
  /** The upload path (`section/file name`) or URL. */
  source: string;
  section: string;
  /** Headings enclosing the excerpt, outermost first. */
  sectionPath: string[];
  pageStart: number | null;
  pageEnd: number | null;
  /** About 200 characters of the passage around what matched. */
  excerpt: string;
}

export interface SearchResult extends Passage {
  /** Comparable within one search only. */
  score: number;
}

export interface AnswerWithCitations {
  answer: string;
  /** The documents do not hold the answer: `citations` are then the nearest passages. */
  abstained: boolean;
  citations: Passage[];
}

/**
 * The knowledge base cannot be reached at all (no server at the URL, credentials refused, the data
 * folder held by a running server): nothing can be done, whatever the input.
 */
export class KnowledgeUnavailableError extends Error {
  override readonly name = 'KnowledgeUnavailableError';
}

/** The knowledge base refused one request: `message` is one line with the status and the reason. */
export class KnowledgeRequestError extends Error {
  override readonly name = 'KnowledgeRequestError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}
