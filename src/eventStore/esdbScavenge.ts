import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from '../log.js';

/**
 * Scavenging: EventStoreDB removes a deleted stream's events from disk only when a scavenge
 * rewrites the chunk files holding them; it never runs one by itself, and the 6.x Node client has
 * no call for it (the operations gRPC service is not exposed). It is started over the node's HTTP
 * API (`POST /admin/scavenge`, as an admin or ops user; open in insecure mode), on the node the
 * connection string names first. Since 22.10 a scavenge first completes the chunk being written,
 * so everything deleted before it started leaves that node's disk. What an operator must still
 * do: every node of a cluster keeps its own copy and needs its own scavenge (schedule
 * `POST /admin/scavenge` on each node, or use the licensed auto-scavenge of v24.10+), and backups
 * taken before the scavenge still hold the data.
 */

export interface ScavengeTarget {
  /** Base URL of the node's HTTP API, e.g. `http://localhost:2113`. */
  baseUrl: string;
  /** `Basic …` header from the connection string's user, if it names one. */
  authorization: string | null;
  /** CA certificate file from the connection string (`tlsCAFile`), for a self-signed server. */
  caFile: string | null;
}

const CONNECTION_STRING = /^esdb(?:\+discover)?:\/\/(?:([^:@/]+):([^@/]+)@)?([^/?]+)\/?(?:\?(.*))?$/i;

/** Reads the first node, TLS and credentials from an `esdb://` connection string. */
export function scavengeTargetFrom(connectionString: string): ScavengeTarget {
  const match = CONNECTION_STRING.exec(connectionString.trim());
  if (!match) throw new Error('not an esdb:// or esdb+discover:// connection string');
  const [, user, password, hosts = '', query = ''] = match;
  const [host = '', port = '2113'] = (hosts.split(',')[0] ?? '').trim().split(':');
  const params = new Map<string, string>();
  for (const pair of query.split('&')) {
    const [key, value] = pair.split('=');
    if (key && value !== undefined) params.set(key.toLowerCase().replace(/[_-]/g, ''), value.trim());
  }
  const tls = params.get('tls') !== 'false';
  const caFile = params.get('tlscafile');
  return {
    baseUrl: `${tls ? 'https' : 'http'}://${host}:${port}`,
    authorization:
      user && password
        ? `Basic ${Buffer.from(`${decodeURIComponent(user)}:${decodeURIComponent(password)}`).toString('base64')}`
        : null,
    caFile: tls && caFile ? decodeURIComponent(caFile) : null,
  };
}

/** Asks the node to start a scavenge; resolves with the id the server gives it. */
export function startScavenge(
  target: ScavengeTarget,
  timeoutMs = 10_000,
): Promise<{ scavengeId: string | null }> {
  const url = new URL('/admin/scavenge', target.baseUrl);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'content-length': '2' };
  if (target.authorization) headers['authorization'] = target.authorization;
  return new Promise((resolve, reject) => {
    const onResponse = (response: http.IncomingMessage): void => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const status = response.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          reject(new Error(`scavenge not started: HTTP ${status} ${body.slice(0, 200)}`.trim()));
          return;
        }
        let scavengeId: string | null = null;
        try {
          const parsed = JSON.parse(body) as { scavengeId?: unknown };
          if (typeof parsed.scavengeId === 'string') scavengeId = parsed.scavengeId;
        } catch {
          // Older servers answer without a JSON body; the scavenge started all the same.
        }
        resolve({ scavengeId });
      });
    };
    const request =
      url.protocol === 'https:'
        ? https.request(
            url,
            {
              method: 'POST',
              headers,
              timeout: timeoutMs,
              ...(target.caFile ? { ca: readFileSync(target.caFile) } : {}),
            },
            onResponse,
          )
        : http.request(url, { method: 'POST', headers, timeout: timeoutMs }, onResponse);
    request.on('timeout', () =>
      request.destroy(new Error(`scavenge not started: no answer within ${timeoutMs} ms`)),
    );
    request.on('error', reject);
    request.end('{}');
  });
}

export interface ScavengeScheduler {
  /** A stream was deleted: start a scavenge after the delay (several deletions share one). */
  requested(): void;
  /** Starts a still pending scavenge now (waiting 2 s at most for the node), then stops. */
  close(): Promise<void>;
}

/**
 * Coalesces deletions into one scavenge `delayMs` after the first of them, since a scavenge
 * rewrites chunk files and purges tend to come in bursts. A scavenge that cannot be started (the
 * node is down, or busy with a scavenge that began before these deletions) is tried again after
 * `delayMs`, a few times; failures are logged, not thrown: the deletion itself has succeeded, only
 * the disk cleanup waits.
 */
export function createScavengeScheduler(options: {
  delayMs: number;
  start: () => Promise<{ scavengeId: string | null }>;
  log: Logger;
  maxAttempts?: number;
}): ScavengeScheduler {
  const maxAttempts = options.maxAttempts ?? 5;
  let timer: NodeJS.Timeout | null = null;
  let failures = 0;
  let closed = false;

  function schedule(): void {
    timer = setTimeout(() => void fire(), options.delayMs);
    timer.unref();
  }

  async function fire(): Promise<void> {
    timer = null;
    try {
      const { scavengeId } = await options.start();
      failures = 0;
      options.log.info({ scavengeId }, 'EventStoreDB scavenge started to remove deleted streams from disk');
    } catch (error) {
      failures += 1;
      const retry = !closed && failures < maxAttempts;
      options.log.warn(
        { err: error, failures },
        retry
          ? 'could not start an EventStoreDB scavenge; trying again'
          : 'could not start an EventStoreDB scavenge: deleted events stay on disk until one runs (POST /admin/scavenge on every node)',
      );
      if (!retry) failures = 0;
      else if (!timer) schedule();
    }
  }

  return {
    requested() {
      if (closed || timer) return;
      schedule();
    },
    async close() {
      closed = true;
      if (!timer) return;
      clearTimeout(timer);
      // Shutting down waits a little for the request, not for an unreachable node's timeout.
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([fire(), new Promise((resolve) => (wait = setTimeout(resolve, 2_000)))]);
      clearTimeout(wait);
    },
  };
}
