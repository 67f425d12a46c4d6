import type { DrillClient, Outcome } from './client.js';

/** An upload the API accepted, by the source it was stored under and the word only it contains. */
export interface AcceptedUpload {
  source: string;
  token: string;
  docId: string | null;
  /** An asynchronous upload: its task, whose outcome decides whether the upload was accepted. */
  taskId: string | null;
}

export interface LoadOptions {
  client: DrillClient;
  apiKey: string;
  /** Authorization header value of an Assistant API user. */
  assistantAuth: string;
  /** Base URL of a local web server whose `/page/<token>` pages the scrapes fetch. */
  pages: string;
  /** Operations in flight at once. */
  concurrency: number;
  stop: AbortSignal;
}

export interface LoadResult {
  accepted: AcceptedUpload[];
  /** Scraped pages the API accepted (their URL is their source). */
  scraped: AcceptedUpload[];
}

const KINDS = ['upload', 'upload_async', 'upload_bulk', 'scrape', 'scrape_async', 'search', 'chat'] as const;
type Kind = (typeof KINDS)[number];
/** How often each kind runs, out of the sum: searches and uploads most, like a day of use. */
const WEIGHTS: Record<Kind, number> = {
  upload: 5,
  upload_async: 3,
  upload_bulk: 2,
  scrape: 2,
  scrape_async: 1,
  search: 5,
  chat: 2,
};

const ok = (outcome: Outcome): boolean => typeof outcome.status === 'number' && outcome.status < 300;

/** The mixed load of the drill, until `stop` aborts: returns what the API accepted. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { client } = options;
  const accepted: AcceptedUpload[] = [];
  const scraped: AcceptedUpload[] = [];
  let counter = 0;
  const token = (prefix: string): string =>
    `${prefix}${(counter += 1)}x${Math.random().toString(36).slice(2, 8)}`;
  const retrieval = { 'X-API-Key': options.apiKey };
  const document = (word: string) =>
    new Blob([`# Drill ${word}\n\nThis page records ${word} for the fault drill.\n`], {
      type: 'text/markdown',
    });
  const form = (files: Array<{ word: string; name: string }>, field: string) => {
    const body = new FormData();
    for (const file of files) body.append(field, document(file.word), file.name);
    body.append('section', 'drill');
    return body;
  };
  const schedule: Kind[] = KINDS.flatMap((kind) => Array.from({ length: WEIGHTS[kind] }, () => kind));

  async function one(kind: Kind): Promise<void> {
    switch (kind) {
      case 'upload': {
        const word = token('up');
        const outcome = await client.send(kind, '/api/v1/upload', {
          method: 'POST',
          headers: retrieval,
          body: form([{ word, name: `${word}.md` }], 'file'),
        });
        if (ok(outcome) && outcome.body?.['success'] === true)
          accepted.push({
            source: `drill/${word}.md`,
            token: word,
            docId: String(outcome.body['doc_id']),
            taskId: null,
          });
        return;
      }
      case 'upload_async': {
        const word = token('ua');
        const outcome = await client.send(kind, '/api/v1/upload/async', {
          method: 'POST',
          headers: retrieval,
          body: form([{ word, name: `${word}.md` }], 'file'),
        });
        if (ok(outcome))
          accepted.push({
            source: `drill/${word}.md`,
            token: word,
            docId: null,
            taskId: String(outcome.body?.['task_id']),
          });
        return;
      }
      case 'upload_bulk': {
        const words = [token('ub'), token('ub'), token('ub')];
        const outcome = await client.send(kind, '/api/v1/upload/bulk', {
          method: 'POST',
          headers: retrieval,
          body: form(
            words.map((word) => ({ word, name: `${word}.md` })),
            'files',
          ),
        });
        if (!ok(outcome)) return;
        const results = (outcome.body?.['results'] as Array<Record<string, unknown>> | undefined) ?? [];
        for (const result of results) {
          const word = String(result['filename']).replace(/\.md$/, '');
          if (result['success'] === true)
            accepted.push({
              source: `drill/${word}.md`,
              token: word,
              docId: String(result['doc_id']),
              taskId: null,
            });
        }
        return;
      }
      case 'scrape':
      case 'scrape_async': {
        const word = token(kind === 'scrape' ? 'sc' : 'sa');
        const url = `${options.pages}/page/${word}`;
        const outcome = await client.send(
          kind,
          kind === 'scrape' ? '/api/v1/scrape' : '/api/v1/scrape/async',
          {
            method: 'POST',
            headers: { ...retrieval, 'Content-Type': 'application/json' },
            body: JSON.stringify(kind === 'scrape' ? { url } : { urls: [url] }),
          },
        );
        if (!ok(outcome)) return;
        if (kind === 'scrape' && outcome.body?.['success'] !== true) return;
        scraped.push({
          source: url,
          token: word,
          docId: kind === 'scrape' ? String(outcome.body?.['doc_id']) : null,
          taskId: kind === 'scrape_async' ? String(outcome.body?.['task_id']) : null,
        });
        return;
      }
      case 'search': {
        const known = accepted.at(-1 - Math.floor(Math.random() * Math.min(accepted.length, 10)));
        await client.send(kind, '/api/v1/search', {
          method: 'POST',
          headers: { ...retrieval, 'Content-Type': 'application/json' },
          body: JSON.stringify({ query: known ? `records ${known.token}` : 'fault drill' }),
        });
        return;
      }
      case 'chat': {
        await client.send(kind, '/api/method/assistant.api.chat_with_tools', {
          method: 'POST',
          headers: { Authorization: options.assistantAuth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ user_message: 'What does the fault drill record?' }),
        });
        return;
      }
    }
  }

  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (!options.stop.aborted) await one(schedule[Math.floor(Math.random() * schedule.length)]!);
    }),
  );
  return { accepted, scraped };
}
