import { createRequire } from 'node:module';
import { parentPort, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type * as Usearch from 'usearch';
import type { ScanReply, ScanRequest } from './scanProtocol.js';

/**
 * A scan thread: its blocks of the mirrored slabs' int8 vectors, scanned on request. Requests that
 * queued up while a scan ran are taken together, and consecutive scans of one slab run as one
 * batch: usearch then reads each stored vector once for all of them.
 */
const usearch = createRequire(import.meta.url)('usearch') as typeof Usearch;
const port = parentPort as MessagePort;

interface Copy {
  dimensions: number;
  blockSlots: number;
  size: number;
  blocks: Map<number, Int8Array>;
}
const copies = new Map<number, Copy>();

type Sync = Extract<ScanRequest, { type: 'sync' }>;
type Scan = Extract<ScanRequest, { type: 'scan' }>;

function applySync(request: Sync): void {
  const { dimensions, blockSlots, size } = request;
  let copy = copies.get(request.slab);
  if (!copy || request.blocks) {
    copy = { dimensions, blockSlots, size, blocks: new Map() };
    copies.set(request.slab, copy);
  }
  const width = blockSlots * dimensions;
  // Blocks are kept as they came (transferred, not copied); one too short for a write grows to a
  // whole block, once.
  for (const { block, bytes } of request.blocks ?? []) copy.blocks.set(block, bytes);
  const blockFor = (block: number, end: number): Int8Array => {
    const held = copy.blocks.get(block);
    if (held && held.length >= end) return held;
    const grown = new Int8Array(width);
    if (held) grown.set(held);
    copy.blocks.set(block, grown);
    return grown;
  };
  const { slots, rows } = request;
  if (slots && rows) {
    slots.forEach((slot, index) => {
      const block = Math.floor(slot / blockSlots);
      const at = (slot - block * blockSlots) * dimensions;
      blockFor(block, at + dimensions).set(rows.subarray(index * dimensions, (index + 1) * dimensions), at);
    });
  }
  copy.size = size;
}

function reply(message: ScanReply): void {
  port.postMessage(message);
}

/** Scans every held block for every query of the batch; each query keeps its best `wanted`. */
function runBatch(batch: Scan[]): void {
  const first = batch[0];
  if (!first) return;
  const copy = copies.get(first.slab);
  if (!copy) {
    for (const scan of batch) reply({ id: scan.id, slots: new Int32Array(0) });
    return;
  }
  const { dimensions, blockSlots, size } = copy;
  const wanted = Math.max(...batch.map((scan) => scan.wanted));
  const queries = new Int8Array(batch.length * dimensions);
  batch.forEach((scan, index) => queries.set(scan.query, index * dimensions));
  const found = batch.map(() => [] as Array<{ slot: number; distance: number }>);
  try {
    for (const [block, bytes] of copy.blocks) {
      const start = block * blockSlots;
      const live = Math.min(blockSlots, size - start, bytes.length / dimensions);
      if (live <= 0) continue;
      const result = usearch.exactSearch(
        bytes.subarray(0, live * dimensions),
        queries,
        dimensions,
        Math.min(wanted, live),
        usearch.MetricKind.IP,
        1,
      );
      batch.forEach((_, index) => {
        const matches = 'get' in result ? result.get(index) : result;
        for (let at = 0; at < matches.keys.length; at += 1) {
          found[index]!.push({ slot: start + Number(matches.keys[at]), distance: matches.distances[at]! });
        }
      });
    }
  } catch (error) {
    for (const scan of batch) reply({ id: scan.id, error: (error as Error).message });
    return;
  }
  batch.forEach((scan, index) => {
    const best = found[index]!.sort((a, b) => a.distance - b.distance).slice(0, scan.wanted);
    reply({ id: scan.id, slots: Int32Array.from(best, (candidate) => candidate.slot) });
  });
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
