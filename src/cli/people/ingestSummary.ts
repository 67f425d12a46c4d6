import { EXIT } from './commandOptions.js';
import type { LeftOut } from './ingestInputs.js';
import type { IngestOutcome } from './knowledgeClient.js';

/** How one input (a path as given or found, or a URL) ended, as `--json` prints it. */
export type IngestRow =
  | { input: string; status: 'added'; doc_id: string; title: string }
  | { input: string; status: 'duplicate'; doc_id: string | null; title: string | null; reason: string }
  | { input: string; status: 'failed'; reason: string };

export interface IngestSummary {
  added: number;
  duplicate: number;
  failed: number;
  results: IngestRow[];
  /** Found but not taken (symbolic links out of a folder): neither ingested nor failed. */
  skipped: LeftOut[];
}

export function rowOf(input: string, outcome: IngestOutcome): IngestRow {
  switch (outcome.status) {
    case 'added':
      return { input, status: 'added', doc_id: outcome.docId, title: outcome.title };
    case 'duplicate':
      return {
        input,
        status: 'duplicate',
        doc_id: outcome.docId,
        title: outcome.title,
        reason: outcome.reason,
      };
    default:
      return { input, status: 'failed', reason: outcome.reason };
  }
}

export function summaryOf(rows: readonly IngestRow[], skipped: readonly LeftOut[]): IngestSummary {
  const count = (status: IngestRow['status']): number => rows.filter((row) => row.status === status).length;
  return {
    added: count('added'),
    duplicate: count('duplicate'),
    failed: count('failed'),
    results: [...rows],
    skipped: [...skipped],
  };
}

/** 0 every input added; 3 none failed but some were stored already; 1 at least one failed. */
export function exitStatusOfSummary(summary: IngestSummary): number {
  if (summary.failed > 0) return EXIT.failed;
  return summary.duplicate > 0 ? EXIT.duplicates : EXIT.ok;
}

/** The summary for people: the counts, then each duplicate, failure and skipped file with its reason. */
export function summaryText(summary: IngestSummary): string {
  const lines = [
    `${summary.added} added, ${summary.duplicate} duplicate${summary.duplicate === 1 ? '' : 's'}, ${summary.failed} failed.`,
  ];
  const list = (title: string, rows: ReadonlyArray<{ input: string; reason: string }>): void => {
    if (rows.length === 0) return;
    lines.push(title, ...rows.map((row) => `  ${row.input}: ${row.reason}`));
  };
  const rows = (status: IngestRow['status']) =>
    summary.results.flatMap((row) => (row.status === status && 'reason' in row ? [row] : []));
  list('Already stored:', rows('duplicate'));
  list('Failed:', rows('failed'));
  list('Skipped:', summary.skipped);
  return `${lines.join('\n')}\n`;
}
