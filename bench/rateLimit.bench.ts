/**
 * What the embedded rate limiter adds to a request, over HTTP. One Archivist app serves the same
 * handler (list_conversations, the current user's empty list) under two paths: one declares
 * `rateLimit: 'chat'`, the other no class. A closed loop (one keep-alive connection, one request
 * at a time, the client in this process) alternates between them run after run, each first in turn; the figure is the
 * difference of the median per-request latencies, with the limit set high enough that every
 * request is allowed and counted (the window's log keeps growing for the whole run: more than the
 * 100 a user can hold at the default limit). Then the limiter alone, called in a loop, and the
 * NATS limiter's round trips when a nats-server can run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createApp } from '../src/http/app.js';
import { conversationRoutes } from '../src/http/assistant/conversationRoutes.js';
import { createLogger } from '../src/log.js';
import { createMemoryRateLimiter } from '../src/rateLimit/memoryRateLimiter.js';
import { createNatsRateLimiter } from '../src/rateLimit/natsRateLimiter.js';
import { createRuntime } from '../src/runtime.js';
import { listen } from '../src/server.js';
import { startNatsServer } from '../test/support/natsServer.js';
import { machine, median, percentile, report } from './support.js';

const RUNS = Number(process.env['RATE_LIMIT_RUNS'] ?? 7);
const REQUESTS = Number(process.env['RATE_LIMIT_REQUESTS'] ?? 3_000);
const WARMUP = 1_000;

console.log(`machine: ${machine()}`);
const dataDir = mkdtempSync(join(tmpdir(), 'bench-rate-limit-'));
const config = loadConfig({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'silent',
  PORT: '0',
  RATE_LIMIT_CHAT_PER_MINUTE: '1000000',
});
const runtime = await createRuntime(config, { log: createLogger({ level: 'silent' }) });
await runtime.start();
const caller = { actorId: 'bench', correlationId: 'bench' };
await runtime.users.add('bench', { admin: false, password: 'bench-password-1' }, caller);
const { key } = await runtime.users.issueKey('bench', caller);

const list = conversationRoutes({ conversations: runtime.conversations }).find(
  (route) => route.operationId === 'assistantListConversations',
)!;
const limited = {
  ...list,
  path: '/assistant.api.bench_limited',
  operationId: 'benchLimited',
  rateLimit: 'chat' as const,
};
const unlimited = { ...list, path: '/assistant.api.bench_unlimited', operationId: 'benchUnlimited' };
delete unlimited.rateLimit;
const app = createApp(runtime, { assistantRoutes: [limited, unlimited] });
const server = await listen(app, runtime);
const { port } = new URL(server.url);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function once(path: string): Promise<{ ms: number; status: number; limited: boolean }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, agent, headers: { Authorization: `token ${key}` } },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({
            ms: Number(process.hrtime.bigint() - started) / 1e6,
            status: res.statusCode ?? 0,
            limited: res.headers['x-ratelimit-limit'] !== undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function run(path: string, count: number, expectHeaders: boolean): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const { ms, status, limited: withHeaders } = await once(path);
    if (status !== 200 || withHeaders !== expectHeaders)
      throw new Error(`${path}: ${status}, headers ${withHeaders}`);
    latencies.push(ms);
  }
  return latencies;
}

const with_: number[] = [];
const without: number[] = [];
try {
  await run('/api/method/assistant.api.bench_limited', WARMUP, true);
  await run('/api/method/assistant.api.bench_unlimited', WARMUP, false);
  for (let i = 1; i <= RUNS; i += 1) {
    // Each goes first every other run, so neither always meets a warmer process.
    const withoutFirst = i % 2 === 1;
    const b0 = withoutFirst ? null : await run('/api/method/assistant.api.bench_limited', REQUESTS, true);
    const a = await run('/api/method/assistant.api.bench_unlimited', REQUESTS, false);
    const b = b0 ?? (await run('/api/method/assistant.api.bench_limited', REQUESTS, true));
    without.push(median(a));
    with_.push(median(b));
    console.log(
      `run ${i}: without p50 ${median(a).toFixed(3)} ms (p99 ${percentile(a, 99).toFixed(3)}) · with p50 ${median(b).toFixed(3)} ms (p99 ${percentile(b, 99).toFixed(3)}) · added ${(median(b) - median(a)).toFixed(3)} ms`,
    );
  }
} finally {
  agent.destroy();
  await server.close();
  await runtime.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

report(`list_conversations p50 without the limiter (median of ${RUNS})`, median(without), 'ms');
report(`list_conversations p50 with the limiter (median of ${RUNS})`, median(with_), 'ms');
report(
  'added by the limiter, p50 (paired runs, median)',
  median(with_.map((value, i) => value - without[i]!)),
  'ms',
  '≤ 0.2 ms',
);

// The in-process limiter alone: 1,000 users at the default limit, their windows full and sliding.
const limiter = createMemoryRateLimiter();
const policy = { limit: 100, windowMs: 60_000 };
const calls = 1_000_000;
const started = process.hrtime.bigint();
for (let i = 0; i < calls; i += 1) await limiter.take(`chat:user-${i % 1_000}`, policy);
report(
  'memory limiter take() alone, 1,000 users',
  Number(process.hrtime.bigint() - started) / calls / 1e3,
  'µs',
);
await limiter.close();

// For comparison, the shared limiter of the distributed profile: one take() is a get and an update
// of a NATS key-value entry (round trips to a local nats-server), one request at a time.
const nats = await startNatsServer();
if (nats) {
  const shared = createNatsRateLimiter({ url: nats.url, bucket: `bench_limits_${process.pid}` });
  try {
    const latencies: number[] = [];
    for (let i = 0; i < 3_000; i += 1) {
      const begun = process.hrtime.bigint();
      await shared.take(`chat:user-${i % 100}`, policy);
      if (i >= 500) latencies.push(Number(process.hrtime.bigint() - begun) / 1e6);
    }
    report('NATS limiter take() p50, 100 users (local nats-server)', median(latencies), 'ms');
    report('NATS limiter take() p99', percentile(latencies, 99), 'ms');
  } finally {
    await shared.close();
    await nats.dispose();
  }
}
