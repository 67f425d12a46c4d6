/**
 * The Assistant API's conversation reads at scale, over HTTP against the compiled server
 * (`npm start`'s configuration, everything embedded):
 *
 * 1. seeding: conversations written straight into the event log as the conversation commands record
 *    them — the searching user's 1,000 conversations holding 80,000 messages, 20,000 more messages of
 *    ten other users, and one 10,000-message conversation of the searching user (110,000 in all;
 *    English with a Zipf-like word frequency, one message in twenty Arabic);
 * 2. the server started on that log, until `/health/ready` says its read models caught up;
 * 3. `search_conversations` p50/p99 at concurrency 1: near-unique terms (a marker word in ~25
 *    messages), common terms (a frequent word alone, or a phrase of two), and Arabic;
 * 4. `get_conversation_history` p50/p99 of a 50-message page of the long conversation at offset 0,
 *    the middle and the end;
 * 5. the reference: a bare Koa app answering a fixed JSON body, timed alternately with the same
 *    client, and each figure's ratio to it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { seedConversations } from './conversations/seed.js';
import { archivistCli, build, machine, median, percentile, report, serveCompiled } from './support.js';

const MESSAGES = Number(process.env['BENCH_MESSAGES'] ?? 80_000);
const CONVERSATIONS = 1_000;
const LONG = 10_000;
const REQUESTS = Number(process.env['BENCH_REQUESTS'] ?? 600);
const PORT = 19_400 + Math.floor(Math.random() * 90);
const REFERENCE_PORT = PORT + 100;
const ORIGIN = `http://127.0.0.1:${PORT}`;
const API = '/api/method/assistant.api';
const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
const seconds = (from: number): number => (performance.now() - from) / 1000;

console.log(`machine: ${machine()}`);
console.log(`load average at start: ${load()} (other processes share the cores when above 0)`);
build();

const dataDir = mkdtempSync(join(tmpdir(), 'bench-conversations-'));
let server: Awaited<ReturnType<typeof serveCompiled>> | null = null;
const reference = spawn(
  process.execPath,
  ['--import', 'tsx', join(import.meta.dirname, 'reference', 'bareKoaJson.ts'), String(REFERENCE_PORT)],
  { stdio: 'ignore' },
);

/** GETs `paths` in turn at concurrency 1, `count` in all; latencies in ms. Non-200 stops the run. */
async function closedLoop(
  origin: string,
  paths: readonly string[],
  count: number,
  headers: Record<string, string>,
  check?: (body: string, path: string) => void,
): Promise<number[]> {
  const pool = new Pool(origin, { connections: 1 });
  const latencies: number[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const path = paths[i % paths.length]!;
      const begin = performance.now();
      const response = await pool.request({ method: 'GET', path, headers });
      const text = await response.body.text();
      latencies.push(performance.now() - begin);
      if (response.statusCode !== 200)
        throw new Error(`${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
      check?.(text, path);
    }
  } finally {
    await pool.close();
  }
  return latencies;
}

try {
  // 1. Seeding.
  let started = performance.now();
  const seeded = await seedConversations({
    dataDir,
    owner: 'bench',
    conversations: CONVERSATIONS,
    messages: MESSAGES,
    otherUsers: 10,
    otherConversations: 20,
    otherMessages: Math.round(MESSAGES / 40),
    longConversation: LONG,
  });
  report(
    `seeding (${seeded.messages.toLocaleString('en')} messages, ${seeded.events.toLocaleString('en')} events)`,
    seeded.messages / seconds(started),
    'messages/s',
  );

  const archivist = archivistCli(dataDir);
  archivist('users', 'add', 'bench');
  const headers = { authorization: `token ${archivist('users', 'key', 'bench')}` };

  // 2. The server on that log, until its read models have caught up.
  started = performance.now();
  server = await serveCompiled(PORT, { DATA_DIR: dataDir, RATE_LIMIT_CHAT_PER_MINUTE: '1000000' });
  for (;;) {
    const ready = await fetch(`${ORIGIN}/api/v1/health/ready`).then((response) => response.ok);
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  report('read models built (start to /health/ready 200)', seconds(started), 's');

  const listed = (await (
    await fetch(`${ORIGIN}${API}.list_conversations?page_size=1`, { headers })
  ).json()) as {
    message: { data: { total: number } };
  };
  if (listed.message.data.total !== CONVERSATIONS + 1)
    throw new Error(`list_conversations reports ${listed.message.data.total} conversations`);

  // 3. search_conversations.
  const search = (query: string): string => `${API}.search_conversations?query=${encodeURIComponent(query)}`;
  const kinds: Array<{ name: string; queries: string[]; target?: string }> = [
    { name: 'near-unique term', queries: seeded.rareTerms.map(search), target: '≤ 20 ms' },
    {
      name: 'common term',
      queries: ['customer', 'invoice', 'meeting', 'budget', 'water', 'people', 'time', 'report'].map(search),
      target: '≤ 20 ms',
    },
    {
      name: 'two common terms',
      queries: ['customer invoice', 'meeting agenda', 'the report', 'payment refund', 'people wat'].map(
        search,
      ),
      target: '≤ 20 ms',
    },
    { name: 'Arabic', queries: ['الفاتورة', 'المدير', 'الميزانيه', 'ادارة المخزون'].map(search) },
  ];
  let empty = 0;
  const countHits = (body: string): void => {
    const parsed = JSON.parse(body) as { message: { data: { results: unknown[] } } };
    if (parsed.message.data.results.length === 0) empty += 1;
  };
  const searchP50: number[] = [];
  for (const kind of kinds) {
    await closedLoop(ORIGIN, kind.queries, 50, headers);
    const latencies = await closedLoop(ORIGIN, kind.queries, REQUESTS, headers, countHits);
    searchP50.push(median(latencies));
    report(`search_conversations, ${kind.name}: p50 (load ${load()})`, median(latencies), 'ms', kind.target);
    report(`search_conversations, ${kind.name}: p99`, percentile(latencies, 99), 'ms');
  }
  if (empty > 0) console.log(`(${empty} searches found nothing)`);

  // 4. get_conversation_history in the 10,000-message conversation.
  const history = (offset: number): string =>
    `${API}.get_conversation_history?conversation_id=${seeded.longConversationId}&limit=50&offset=${offset}`;
  const historyP50: number[] = [];
  for (const [name, offset] of [
    ['offset 0', 0],
    ['middle', LONG / 2],
    ['end', LONG - 50],
  ] as const) {
    await closedLoop(ORIGIN, [history(offset)], 50, headers);
    const latencies = await closedLoop(ORIGIN, [history(offset)], REQUESTS, headers, (body) => {
      const parsed = JSON.parse(body) as { message: { data: { messages: Array<{ sequence: number }> } } };
      const messages = parsed.message.data.messages;
      if (messages.length !== 50 || messages[0]!.sequence !== offset + 1)
        throw new Error(`history at ${offset}: ${messages.length} messages from ${messages[0]?.sequence}`);
    });
    historyP50.push(median(latencies));
    report(
      `get_conversation_history, 50 at ${name}: p50 (load ${load()})`,
      median(latencies),
      'ms',
      '≤ 10 ms',
    );
    report(`get_conversation_history, 50 at ${name}: p99`, percentile(latencies, 99), 'ms');
  }

  // 5. The reference, timed with the same client.
  const referenceLatencies = await closedLoop(
    `http://127.0.0.1:${REFERENCE_PORT}`,
    ['/reference'],
    REQUESTS * 2,
    headers,
  );
  const referenceP50 = median(referenceLatencies.slice(REQUESTS));
  report('reference: bare Koa, fixed JSON: p50', referenceP50, 'ms');
  report('  search_conversations p50 (median of kinds) / reference', median(searchP50) / referenceP50, '×');
  report(
    '  get_conversation_history p50 (median of offsets) / reference',
    median(historyP50) / referenceP50,
    '×',
  );
  console.log(`load average at end: ${load()}`);
} finally {
  await server?.stop();
  reference.kill();
  rmSync(dataDir, { recursive: true, force: true });
}
