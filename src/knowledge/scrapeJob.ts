import { derivedId } from './derivedId.js';
import { fetchPage, FetchPageError } from '../scrape/fetchPage.js';
import type { AddressPolicy } from '../scrape/addressPolicy.js';
import { normalizeUrl } from '../scrape/normalizeUrl.js';
import type { JobType } from '../workers/jobs.js';
import type { Ingest, IngestionOutcome } from './ingest.js';
import { failedOutcome } from './ingest.js';
import { taskProgressOf } from './ingestJobs.js';
import { ingestionResource } from './resources.js';

export const SCRAPE_JOB = 'scrape';

export interface ScrapeTaskInput {
  urls: string[];
  timeoutSeconds: number;
  /** Absent in tasks created before collections: `default`. */
  collection?: string;
  skipDuplicates: boolean;
  actorId: string;
  correlationId: string;
}

export interface ScrapeLimits {
  policy: AddressPolicy;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
}

/**
 * Fetches and ingests web pages in a worker, one URL after another, recording progress per URL. Its
 * result: urls_processed, successful, failed, total_chunks_added, and each URL's ingestion result.
 * A page that cannot be fetched or parsed is a failed URL, not a failed task.
 */
export function scrapeJob(deps: { ingest: Ingest; limits: ScrapeLimits }): JobType {
  return {
    name: SCRAPE_JOB,
    // As many as an upload's: a scrape can meet a killed worker and a redelivery after a bus restart
    // in one run, and its pages are claimed by the task, so a resumed attempt ingests nothing twice.
    maxAttempts: 3,
    concurrency: 2,
    async run({ taskId, input, signal, progress }) {
      const task = input as unknown as ScrapeTaskInput;
      const results: Array<Record<string, unknown>> = [];
      for (const [at, raw] of task.urls.entries()) {
        await progress(at / task.urls.length, `fetching ${at + 1} of ${task.urls.length}: ${raw}`);
        let outcome: IngestionOutcome;
        try {
          const source = normalizeUrl(raw);
          const page = await fetchPage(raw, {
            timeoutMs: task.timeoutSeconds * 1000,
            maxBytes: deps.limits.maxBytes,
            maxRedirects: deps.limits.maxRedirects,
            policy: deps.limits.policy,
            userAgent: deps.limits.userAgent,
            signal,
          });
          outcome = await deps.ingest({
            fileName: page.fileName,
            bytes: page.bytes,
            source,
            sourceKind: 'url',
            section: 'web',
            ...(task.collection ? { collection: task.collection } : {}),
            skipDuplicates: task.skipDuplicates,
            caller: { actorId: task.actorId, correlationId: task.correlationId },
            signal,
            taskId,
            // The same in every attempt of the task: a resumed attempt owns its predecessor's claims.
            docId: derivedId(taskId, `url:${at}`),
            onWait: (message) => progress(at / task.urls.length, `claim: ${message}`),
            onProgress: taskProgressOf(progress, (share) => (at + share) / task.urls.length),
          });
        } catch (error) {
          if (signal.aborted) throw error;
          if (!(error instanceof FetchPageError) && !(error instanceof TypeError)) throw error;
          outcome = failedOutcome(raw, error.message);
        }
        results.push(ingestionResource(outcome, { url: raw }));
      }
      await progress(1, `done: ${task.urls.length} URLs`);
      const succeeded = results.filter((result) => result['success'] === true);
      return {
        urls_processed: results.length,
        successful: succeeded.length,
        failed: results.length - succeeded.length,
        total_chunks_added: results.reduce((sum, result) => sum + Number(result['chunks_added']), 0),
        results,
      };
    },
  };
}
