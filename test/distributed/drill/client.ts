/**
 * The fault drill's HTTP client: what a load balancer in front of the API processes does. Requests
 * go round-robin; one refused at connect (its API process is down) goes to the next API — it never
 * reached a process, so sending it elsewhere cannot do it twice. One cut off after it was sent is
 * `interrupted` (a balancer would answer 502): it may or may not have happened.
 */
export interface Outcome {
  kind: string;
  api: string;
  status: number | 'interrupted';
  body: Record<string, unknown> | null;
  retryAfter: string | null;
  /** The API's correlation id (X-Request-ID): the key to its log lines about this request. */
  requestId: string | null;
  startedAt: number;
  ms: number;
}

export interface DrillClient {
  send(kind: string, path: string, init: RequestInit): Promise<Outcome>;
  outcomes: Outcome[];
}

function refusedAtConnect(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === 'ECONNREFUSED';
}

export function createDrillClient(apiUrls: readonly string[], timeoutMs = 60_000): DrillClient {
  let next = 0;
  const outcomes: Outcome[] = [];
  return {
    outcomes,
    async send(kind, path, init) {
      const startedAt = Date.now();
      let api = apiUrls[next++ % apiUrls.length]!;
      for (let tries = 0; ; tries += 1) {
        try {
          const response = await fetch(`${api}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) });
          const text = await response.text();
          let body: Record<string, unknown> | null = null;
          try {
            body = JSON.parse(text) as Record<string, unknown>;
          } catch {
            body = { text };
          }
          const outcome: Outcome = {
            kind,
            api,
            status: response.status,
            body,
            retryAfter: response.headers.get('retry-after'),
            requestId: response.headers.get('x-request-id'),
            startedAt,
            ms: Date.now() - startedAt,
          };
          outcomes.push(outcome);
          return outcome;
        } catch (error) {
          if (refusedAtConnect(error) && tries < apiUrls.length * 20) {
            api = apiUrls[next++ % apiUrls.length]!;
            // Every API refused in a row: wait a moment before the next round (all restarting).
            if ((tries + 1) % apiUrls.length === 0) await new Promise((resolve) => setTimeout(resolve, 250));
            continue;
          }
          const outcome: Outcome = {
            kind,
            api,
            status: 'interrupted',
            body: { error: (error as Error).message },
            retryAfter: null,
            requestId: null,
            startedAt,
            ms: Date.now() - startedAt,
          };
          outcomes.push(outcome);
          return outcome;
        }
      }
    },
  };
}
