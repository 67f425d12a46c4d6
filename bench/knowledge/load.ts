/**
 * HTTP load for the knowledge-base benchmark: autocannon at a fixed number of connections with a
 * different body on every request; a closed-loop client (undici, microsecond timing) for latencies
 * at low concurrency, where autocannon's whole-millisecond histogram is too coarse; and an open-loop
 * client for latencies at a given rate of arrivals.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Pool } from 'undici';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}

interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}

type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: AutocannonRequest[];
}) => Promise<AutocannonResult>;

// autocannon has no type declarations: this is the part of its API used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Throughput and latency with `connections` requests always in flight, bodies cycling through `bodies`. */
export async function autocannonLoad(options: {
  url: string;
  path: string;
  bodies: readonly unknown[];
  connections: number;
  seconds: number;
}): Promise<{ rate: number; p50: number; p99: number; total: number }> {
  let next = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        method: 'POST',
        path: options.path,
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify(options.bodies[next++ % options.bodies.length]),
        }),
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `failures during the run: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return {
    rate: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

/** POSTs `body` as JSON and reads the whole answer; anything but a 200 is an error of the run. */
async function postJson(
  pool: Pool,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await pool.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200)
    throw new Error(`${path} answered ${response.statusCode}: ${text.slice(0, 300)}`);
  return text;
}

/**
 * A closed loop of `concurrency` clients, each sending its next request when the last one answered,
 * `requests` in all; latencies in milliseconds. `check` sees every parsed response.
 */
export async function closedLoop(options: {
  origin: string;
  path: string;
  bodies: readonly unknown[];
  requests: number;
  concurrency: number;
  check?: (response: unknown, body: unknown) => void;
  headers?: Record<string, string>;
}): Promise<{ latencies: number[]; rate: number }> {
  const pool = new Pool(options.origin, { connections: options.concurrency });
  const latencies: number[] = [];
  let sent = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (sent < options.requests) {
          const body = options.bodies[sent++ % options.bodies.length];
          const begin = performance.now();
          const text = await postJson(pool, options.path, body, options.headers);
          latencies.push(performance.now() - begin);
          options.check?.(JSON.parse(text), body);
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return { latencies, rate: latencies.length / ((performance.now() - started) / 1000) };
}

/**
 * Requests sent at `rate` per second for `seconds`, each at its own time whether or not the earlier
 * ones have answered (an open loop, as independent users arrive). A latency runs from the time a
 * request was due, not from when it went out, so a client held back by a slow server counts the
 * wait (no coordinated omission). The first `warmUpSeconds` go at the same rate but are not counted:
 * the client is a fresh process whose own compiling and connecting would otherwise count as the
 * server's latency. `worstBySecond` is the highest latency of each counted second, to show whether
 * a tail is spread out or one stall.
 */
export async function openLoop(options: {
  origin: string;
  path: string;
  bodies: readonly unknown[];
  rate: number;
  seconds: number;
  warmUpSeconds?: number;
}): Promise<{ latencies: number[]; rate: number; worstBySecond: number[] }> {
  const pool = new Pool(options.origin, { connections: 64 });
  const warmUp = Math.round(options.rate * (options.warmUpSeconds ?? 0));
  const total = warmUp + Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const latencies: number[] = [];
  const worstBySecond = Array.from({ length: Math.ceil(options.seconds) }, () => 0);
  const requests: Array<Promise<void>> = [];
  const started = performance.now();
  let measuredFrom = started;
  try {
    for (let index = 0; index < total; index += 1) {
      const due = started + index * interval;
      const wait = due - performance.now();
      // Timers fire to the millisecond: when a request is due sooner, it goes out now.
      if (wait >= 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (index === warmUp) measuredFrom = due;
      const body = options.bodies[index % options.bodies.length];
      const answered = postJson(pool, options.path, body);
      if (index < warmUp) {
        requests.push(answered.then(() => undefined));
        continue;
      }
      const second = Math.floor((index - warmUp) / options.rate);
      requests.push(
        answered.then(() => {
          const latency = performance.now() - due;
          latencies.push(latency);
          worstBySecond[second] = Math.max(worstBySecond[second] ?? 0, latency);
        }),
      );
    }
    await Promise.all(requests);
  } finally {
    await pool.close();
  }
  return { latencies, rate: latencies.length / ((performance.now() - measuredFrom) / 1000), worstBySecond };
}

/** `openLoop` run by `openLoopClient.ts` in a child process (with tsx, as the benchmarks run). */
export async function openLoopInChild(options: Parameters<typeof openLoop>[0]): ReturnType<typeof openLoop> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'openLoopClient.ts')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin.end(JSON.stringify(options));
  let output = '';
  for await (const chunk of child.stdout) output += String(chunk);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`the open-loop client exited with ${code}`);
  return JSON.parse(output) as Awaited<ReturnType<typeof openLoop>>;
}
