import type { Config } from '../../config.js';
import { mapLimit } from '../../mapLimit.js';
import { collectionOption, EXIT, exitStatusOf, integerOption, type PeopleOptions } from './commandOptions.js';
import { expandInputs, type IngestInput } from './ingestInputs.js';
import { ingestProgress, type IngestProgress } from './ingestProgress.js';
import { exitStatusOfSummary, rowOf, summaryOf, summaryText, type IngestRow } from './ingestSummary.js';
import {
  KnowledgeUnavailableError,
  type IngestOutcome,
  type IngestTarget,
  type KnowledgeClient,
} from './knowledgeClient.js';
import { openKnowledgeClient } from './openKnowledgeClient.js';
import { UsageError } from '../usageError.js';

export const INGEST_USAGE = `  ingest PATH|URL…      Add files, folders (recursively; dot-files skipped, no symbolic link followed out
                        of a folder), quoted globs ('docs/**/*.pdf': * ? [a-z] **) and web pages
                        (http(s) URLs) to the knowledge base, a few at a time, with their progress on
                        standard error and a summary (added, duplicates, failures and why) at the end.
      --url URL         Through the server at URL (or ARCHIVIST_URL), with the key in ARCHIVIST_KEY:
                        a user's key:secret (archivist users key) or a service key of API_KEYS.
                        Without it, on DATA_DIR in this process (refused while a server runs there).
      --collection NAME Into this collection.
      --concurrency N   Inputs in flight at once (1-16, default 3).
      --json            Print the summary as JSON on standard output.
                        Exit status: 0 every input added; 3 none failed but some were stored already
                        (duplicates); 1 at least one failed; 2 wrong usage, or the knowledge base
                        cannot be reached (no server at --url, key refused, DATA_DIR held by a server).`;

const label = (input: IngestInput): string => (input.kind === 'file' ? input.path : input.url);

/** One input from start to outcome; only an unreachable knowledge base escapes as an error. */
async function ingestOne(
  client: KnowledgeClient,
  input: IngestInput,
  target: IngestTarget,
  progress: IngestProgress,
): Promise<IngestOutcome> {
  const name = label(input);
  try {
    progress.stage(name, input.kind === 'file' ? 'uploading' : 'requesting', 0);
    const start =
      input.kind === 'file'
        ? await client.ingestFile(input.path, input.name, target)
        : await client.ingestUrl(input.url, target);
    if ('outcome' in start) return start.outcome;
    for await (const update of client.progress(start.taskId)) {
      if (update.kind === 'finished') return update.outcome;
      progress.stage(name, update.stage, update.fraction);
    }
    return { status: 'failed', reason: 'the ingestion task ended without an outcome' };
  } catch (error) {
    if (error instanceof KnowledgeUnavailableError) throw error;
    return { status: 'failed', reason: (error as Error).message };
  }
}

/**
 * `archivist ingest PATH|URL…`: every input through the knowledge base, `--concurrency` at a time.
 * When the knowledge base becomes unreachable midway, no further input is started; the summary
 * says which were not attempted, and the exit status is 2.
 */
export async function ingestCommand(
  config: Config,
  args: readonly string[],
  values: PeopleOptions,
): Promise<number> {
  let client: KnowledgeClient | null = null;
  try {
    if (args.length === 0) throw new UsageError('ingest needs at least one PATH or URL');
    const concurrency = integerOption(values.concurrency, 'concurrency', { min: 1, max: 16, fallback: 3 });
    const target = collectionOption(values.collection);
    const { inputs, failures, skipped } = await expandInputs(args);
    const rows: Array<IngestRow | undefined> = [];
    let unavailable: KnowledgeUnavailableError | null = null;
    if (inputs.length > 0) {
      const opened = await openKnowledgeClient(config, values.url, { mustExist: false });
      client = opened;
      const progress = ingestProgress(process.stderr, inputs.length);
      try {
        await mapLimit(inputs, concurrency, async (input, index) => {
          const outcome = await ingestOne(opened, input, target, progress);
          progress.finished(label(input), outcome);
          rows[index] = rowOf(label(input), outcome);
        });
      } catch (error) {
        if (!(error instanceof KnowledgeUnavailableError)) throw error;
        unavailable = error;
      } finally {
        progress.close();
      }
    }
    if (unavailable && rows.every((row) => row === undefined)) {
      process.stderr.write(`archivist: ${unavailable.message}\n`);
      return EXIT.unusable;
    }
    const summary = summaryOf(
      [
        ...failures.map((failure) => rowOf(failure.input, { status: 'failed', reason: failure.reason })),
        ...inputs.map(
          (input, index) =>
            rows[index] ??
            rowOf(label(input), {
              status: 'failed',
              reason: `not attempted: ${unavailable?.message ?? 'the run stopped'}`,
            }),
        ),
      ],
      skipped,
    );
    process.stdout.write(values.json ? `${JSON.stringify(summary, null, 2)}\n` : summaryText(summary));
    if (unavailable) {
      process.stderr.write(`archivist: ${unavailable.message}\n`);
      return EXIT.unusable;
    }
    return exitStatusOfSummary(summary);
  } catch (error) {
    return exitStatusOf(error, INGEST_USAGE);
  } finally {
    await client?.close();
  }
}
