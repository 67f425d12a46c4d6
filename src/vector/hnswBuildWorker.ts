import { closeSync, fsyncSync, openSync, renameSync, statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { fileDigest } from './fileDigest.js';
import { usearchIndex, type GraphBuildRequest, type GraphFile } from './hnswGraph.js';

/** A worker thread's whole life: build one graph, save it, report its size and digest, exit. */
const { vectors, dimensions, file, threads } = workerData as GraphBuildRequest;
try {
  const index = usearchIndex(dimensions);
  const count = vectors.length / dimensions;
  const keys = new BigUint64Array(count);
  for (let key = 0; key < count; key += 1) keys[key] = BigInt(key);
  if (count > 0) index.add(keys, vectors, threads);
  const partial = `${file}.partial`;
  index.save(partial);
  // Durable before it is named: a graph mapped from a file cut short would crash the process.
  const fd = openSync(partial, 'r');
  fsyncSync(fd);
  closeSync(fd);
  const saved: GraphFile = { size: statSync(partial).size, sha256: fileDigest(partial) };
  renameSync(partial, file);
  parentPort!.postMessage({ saved });
} catch (error) {
  parentPort!.postMessage({ error: (error as Error).message });
}
