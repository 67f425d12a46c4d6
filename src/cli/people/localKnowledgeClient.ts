import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { createLogger } from '../../log.js';
import { eventLogPath } from '../../adapters.js';
import type { Config } from '../../config.js';
import { DataDirLockedError } from '../../dataDirLock.js';
import { taskStream } from '../../domain/task/events.js';
import { citedFocus, passageOf } from '../../knowledge/passage.js';
import type { SearchHit } from '../../knowledge/search.js';
import type { SearchFilters } from '../../knowledge/searchFilters.js';
import { VECTORS_PROJECTION } from '../../knowledge/vectorProjector.js';
import { runProcess } from '../../process.js';
import { KNOWLEDGE } from '../../projections/knowledgeProjection.js';
import { TASKS } from '../../projections/tasksProjection.js';
import { ALL_ROLES } from '../../roles.js';
import { operator } from '../adminCommand.js';
import { updateOfTaskEvent } from './ingestUpdates.js';
import {
  KnowledgeUnavailableError,
  type IngestStart,
  type IngestUpdate,
  type KnowledgeClient,
  type Passage,
} from './knowledgeClient.js';

/** The upload form's defaults, as the Retrieval API applies them. */
const SECTION = 'uploaded';
const SCRAPE_TIMEOUT_SECONDS = 30;
/** Candidates each retriever contributes, as the API's default `initial_k`. */
const INITIAL_K = 20;

/** A passage as the client gives it, from a search hit and what to centre its excerpt on. */
function passageOfHit(hit: SearchHit, focus: string): Passage {
  const passage = passageOf(hit, focus) as {
    section_path: string[];
    page_start: number;
    page_end: number;
    excerpt: { text: string };
  };
  return {
    docId: hit.document.id,
    title: hit.document.title,
    source: hit.document.source,
    section: hit.document.section,
    sectionPath: passage.section_path,
    pageStart: passage.page_start,
    pageEnd: passage.page_end,
    excerpt: passage.excerpt.text,
  };
}

const collectionFilter = (collection: string | undefined): { filters?: SearchFilters } =>
  collection ? { filters: { collection } } : {};

/**
 * The knowledge base of the local DATA_DIR, in this process: the runtime with its workers and
 * projections (no HTTP server), and the use cases the Retrieval API's routes call. A server
 * running on the same folder holds its lock: then this refuses, and the server is the way in.
 * `mustExist`: refuse a folder with no data (a mistyped DATA_DIR would otherwise search nothing).
 */
export async function openLocalKnowledgeClient(
  config: Config,
  options: { mustExist: boolean },
): Promise<KnowledgeClient> {
  if (options.mustExist && config.eventStore === 'file' && !existsSync(eventLogPath(config.dataDir))) {
    throw new KnowledgeUnavailableError(
      `no Archivist data in ${config.dataDir} (no events.db there): check DATA_DIR, or use --url`,
    );
  }
  // The commands' output is theirs: the runtime says only what goes wrong, on standard error.
  const log = createLogger({ level: 'warn', to: 'stderr' });
  let running: Awaited<ReturnType<typeof runProcess>>;
  try {
    running = await runProcess(
      config,
      log,
      ALL_ROLES.filter((role) => role !== 'api'),
    );
  } catch (error) {
    if (error instanceof DataDirLockedError)
      throw new KnowledgeUnavailableError(
        `a server is running on DATA_DIR (${config.dataDir}); use --url (${error.message})`,
      );
    throw error;
  }
  const { runtime } = running;
  const caller = operator();

  /** Read-your-writes: the read models and the vector index hold the log up to `position`. */
  const caughtUp = async (position: number, projections: readonly string[]): Promise<void> => {
    await runtime.behind(position, { projections, timeoutMs: config.readYourWritesTimeoutMs });
  };
  // The projections resume from their checkpoints at start: a search waits until they hold what
  // was there when it was asked (once per process; later ingestions wait for themselves).
  let started: Promise<void> | null = null;
  const current = (): Promise<void> =>
    (started ??= runtime.eventStore
      .headPosition()
      .then((head) => caughtUp(head, [KNOWLEDGE, VECTORS_PROJECTION])));

  async function* progress(taskId: string): AsyncGenerator<IngestUpdate> {
    const subscription = runtime.eventStore.subscribeToStream(taskStream(taskId), { fromVersion: 1 });
    try {
      for await (const batch of subscription) {
        for (const event of batch) {
          const update = updateOfTaskEvent(event.type, event.data);
          if (!update) continue;
          if (update.kind === 'finished') {
            await caughtUp(event.position, [TASKS, KNOWLEDGE, VECTORS_PROJECTION]);
            yield update;
            return;
          }
          yield update;
        }
      }
    } finally {
      subscription.close();
    }
  }

  return {
    async ingestFile(path, name, target): Promise<IngestStart> {
      try {
        const { size } = await stat(path);
        if (size > config.maxUploadBytes) {
          return {
            outcome: {
              status: 'failed',
              reason: `${name} is larger than the upload limit: ${size} bytes, at most ${config.maxUploadBytes} (MAX_UPLOAD_BYTES)`,
            },
          };
        }
        const task = await runtime.library.startUpload(
          {
            fileName: basename(name),
            bytes: await readFile(path),
            ...(name.includes('/') ? { path: name } : {}),
          },
          { section: SECTION, skipDuplicates: true, ...target },
          caller,
        );
        return 'refused' in task ? { outcome: { status: 'failed', reason: task.refused } } : task;
      } catch (error) {
        return { outcome: { status: 'failed', reason: (error as Error).message } };
      }
    },
    async ingestUrl(url, target): Promise<IngestStart> {
      try {
        return await runtime.library.startScrape(
          [url],
          { skipDuplicates: true, timeoutSeconds: SCRAPE_TIMEOUT_SECONDS, ...target },
          caller,
        );
      } catch (error) {
        return { outcome: { status: 'failed', reason: (error as Error).message } };
      }
    },
    progress,
    async search(query, { limit, collection }) {
      await current();
      const { hits } = await runtime.library.search(
        { query, topK: limit, initialK: Math.max(INITIAL_K, limit), ...collectionFilter(collection) },
        caller,
      );
      return hits.map((hit) => ({ ...passageOfHit(hit, query), score: hit.score }));
    },
    async ask(question, { limit, collection }) {
      await current();
      const answer = await runtime.library.answer(
        {
          question,
          topK: limit,
          initialK: Math.max(INITIAL_K, limit),
          temperature: null,
          ...collectionFilter(collection),
        },
        caller,
      );
      return {
        answer: answer.answer,
        abstained: answer.abstained,
        citations: answer.hits.map((hit, index) =>
          passageOfHit(hit, citedFocus(answer.answer, index, question)),
        ),
      };
    },
    close: () => running.stop(),
  };
}
