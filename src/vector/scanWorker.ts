import { createRequire } from 'node:module';
import { parentPort, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type * as Usearch from 'usearch';
import type { ScanReply, ScanRequest } from './scanProtocol.js';

/**
 * The scan thread: int8 copies of the mirrored slabs, scanned on request. Requests that queued up
 * while a scan ran are taken together, and consecutive scans of one slab run as one batch: usearch
 * then reads each stored vector once for all of them.
 */
const usearch = createRequire(import.meta.url)('usearch') as typeof Usearch;
const port = parentPort as MessagePort;

interface Copy {
  dimensions: number;
  size: number;
  bytes: Int8Array;
}
const copies = new Map<number, Copy>();

function applySync(request: Extract<ScanRequest, { type: 'sync' }>): void {
  const { dimensions, size } = request;
  if (request.whole) {
    copies.set(request.slab, { dimensions, size, bytes: request.whole });
    return;
  }
  let copy = copies.get(request.slab);
  if (!copy) copies.set(request.slab, (copy = { dimensions, size: 0, bytes: new Int8Array(0) }));
  if (size * dimensions > copy.bytes.length) {
    const bytes = new Int8Array(Math.max(size * dimensions, copy.bytes.length * 2));
    bytes.set(copy.bytes.subarray(0, copy.size * dimensions));
    copy.bytes = bytes;
  }
  const { slots, rows } = request;
  if (slots && rows) {
    slots.forEach((slot, index) =>
      copy.bytes.set(rows.subarray(index * dimensions, (index + 1) * dimensions), slot * dimensions),
    );
  }
  copy.size = size;
}

type Scan = Extract<ScanRequest, { type: 'scan' }>;

function reply(message: ScanReply): void {
  port.postMessage(message);
}

function runBatch(batch: Scan[]): void {
  const first = batch[0];
  if (!first) return;
  const copy = copies.get(first.slab);
  if (!copy || copy.size === 0) {
    for (const scan of batch) reply({ id: scan.id, slots: new Int32Array(0) });
    return;
  }
  const { dimensions, size } = copy;
  const wanted = Math.min(size, Math.max(...batch.map((scan) => scan.wanted)));
  const queries = new Int8Array(batch.length * dimensions);
  batch.forEach((scan, index) => queries.set(scan.query, index * dimensions));
  try {
    const result = usearch.exactSearch(
      copy.bytes.subarray(0, size * dimensions),
      queries,
      dimensions,
      wanted,
      usearch.MetricKind.IP,
      1,
    );
    batch.forEach((scan, index) => {
      const matches = 'get' in result ? result.get(index) : result;
      const found = Math.min(matches.keys.length, scan.wanted);
      const slots = new Int32Array(found);
      for (let at = 0; at < found; at += 1) slots[at] = Number(matches.keys[at]);
      reply({ id: scan.id, slots });
    });
  } catch (error) {
    for (const scan of batch) reply({ id: scan.id, error: (error as Error).message });
  }
}

function handle(first: ScanRequest): void {
  let batch: Scan[] = [];
  const flush = (): void => {
    runBatch(batch);
    batch = [];
  };
  let request: ScanRequest | undefined = first;
  while (request) {
    if (request.type === 'scan') {
      if (batch[0] && batch[0].slab !== request.slab) flush();
      batch.push(request);
    } else {
      // A change is seen by the scans after it, not by those before.
      flush();
      if (request.type === 'sync') applySync(request);
      else if (request.type === 'forget') copies.delete(request.slab);
      else {
        // Nothing else keeps the thread alive: it ends once this turn returns.
        port.close();
        return;
      }
    }
    request = (receiveMessageOnPort(port)?.message as ScanRequest | undefined) ?? undefined;
  }
  flush();
}

port.on('message', handle);
