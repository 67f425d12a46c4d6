import type { MilvusClient } from '@zilliz/milvus2-sdk-node';
import type { Logger } from '../log.js';
import type { MilvusEndpoint } from './milvusUrl.js';
import { VectorIndexError } from './vectorIndex.js';

export interface MilvusConnectionOptions {
  endpoint: MilvusEndpoint;
  /** Deadline of every call (the SDK's own default leaves inserts without one). */
  timeoutMs: number;
  log: Logger;
}

export interface CallOptions {
  /** Deadline of this call instead of the connection's (health probes answer faster). */
  timeoutMs?: number;
  /** What a refusal by the server means here; failing to reach it is always `unavailable`. */
  refusal?: VectorIndexError['code'];
}

/**
 * One SDK client, connected on first use. Every call goes through `call`, which gives it a deadline,
 * checks the status the SDK returns instead of throwing (`code`, or `error_code` from servers that
 * set only that — Milvus Lite sets `error_code: "Success"` even on failures), and turns every
 * failure into a `VectorIndexError`: no Milvus type or error leaves this module's callers.
 */
export interface MilvusConnection {
  readonly display: string;
  call<T>(
    what: string,
    operation: (client: MilvusClient, timeout: number) => Promise<T>,
    options?: CallOptions,
  ): Promise<T>;
  close(): Promise<void>;
}

interface Status {
  code?: number | string;
  error_code?: number | string;
  reason?: string;
  detail?: string;
}

function statusOf(result: unknown): Status | null {
  if (typeof result !== 'object' || result === null) return null;
  const record = result as { status?: unknown; error_code?: unknown; code?: unknown };
  if (typeof record.status === 'object' && record.status !== null) return record.status as Status;
  return 'error_code' in record || 'code' in record ? (record as Status) : null;
}

function failed(status: Status): boolean {
  const code = Number(status.code ?? 0);
  const errorCode = status.error_code;
  return (
    (Number.isFinite(code) && code !== 0) ||
    (errorCode !== undefined && errorCode !== 'Success' && errorCode !== 0 && errorCode !== '0')
  );
}

// grpc-js retries a refused connection with a backoff that grows to two minutes: capped here, so a
// Milvus that comes back is used again within seconds. Its connections are otherwise shared by every
// client of the process: a client made after a failed one would inherit that one's backoff. The
// SDK pings every 10 s, which Milvus Lite (gRPC's default policy: one ping per 5 min on an idle
// connection) answers by closing the connection ("excess pings"); every call has a deadline anyway.
const CHANNEL_OPTIONS = {
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 5_000,
  'grpc.use_local_subchannel_pool': 1,
  'grpc.keepalive_time_ms': 300_000,
};

export function createMilvusConnection(options: MilvusConnectionOptions): MilvusConnection {
  const { endpoint, log } = options;
  let client: MilvusClient | null = null;
  let connecting: Promise<MilvusClient> | null = null;
  let closed = false;

  async function open(): Promise<MilvusClient> {
    // Loaded on first use: the SDK takes 0.4–0.7 s to import, which the embedded profile never pays.
    const { MilvusClient } = await import('@zilliz/milvus2-sdk-node');
    const created = new MilvusClient({
      address: endpoint.address,
      ssl: endpoint.ssl,
      ...(endpoint.token ? { token: endpoint.token } : {}),
      timeout: options.timeoutMs,
      logLevel: 'error',
      telemetry: { enabled: false },
      channelOptions: CHANNEL_OPTIONS,
    });
    // The constructor starts a handshake whose failure would stay in the client for good (later
    // calls await it): a client that could not connect is thrown away and the next call makes another.
    try {
      await created.connectPromise;
    } catch (error) {
      await created.closeConnection().catch(() => undefined);
      throw error;
    }
    if (closed) {
      await created.closeConnection().catch(() => undefined);
      throw new VectorIndexError('closed', `the connection to Milvus at ${endpoint.display} is closed`);
    }
    log.debug({ milvus: endpoint.display }, 'connected to Milvus');
    return created;
  }

  async function connected(): Promise<MilvusClient> {
    if (client) return client;
    connecting ??= open().then(
      (created) => {
        client = created;
        connecting = null;
        return created;
      },
      (error: unknown) => {
        connecting = null;
        throw error;
      },
    );
    return connecting;
  }

  return {
    display: endpoint.display,
    async call(what, operation, callOptions = {}) {
      if (closed) {
        throw new VectorIndexError('closed', `the connection to Milvus at ${endpoint.display} is closed`);
      }
      let result: Awaited<ReturnType<typeof operation>>;
      try {
        result = await operation(await connected(), callOptions.timeoutMs ?? options.timeoutMs);
      } catch (error) {
        if (error instanceof VectorIndexError) throw error;
        throw new VectorIndexError(
          'unavailable',
          `Milvus at ${endpoint.display}: ${what} failed: ${(error as Error).message ?? String(error)}`,
        );
      }
      const status = statusOf(result);
      if (status && failed(status)) {
        const reason = status.reason || status.detail || 'no reason given';
        throw new VectorIndexError(
          callOptions.refusal ?? 'unavailable',
          `Milvus at ${endpoint.display} refused ${what}: ${reason} (code ${status.code ?? status.error_code})`,
        );
      }
      return result;
    },
    async close() {
      closed = true;
      const current = client ?? (await connecting?.catch(() => null)) ?? null;
      client = null;
      await current?.closeConnection().catch(() => undefined);
    },
  };
}
