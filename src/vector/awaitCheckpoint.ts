import { setTimeout as sleep } from 'node:timers/promises';
import type { VectorIndex } from './vectorIndex.js';

/**
 * True once the index's committed checkpoint has reached `position`; false after `timeoutMs`. For a
 * process that searches an index another process writes (Milvus: the projector role): the
 * checkpoint is committed only after the writes it covers, so a search that follows sees them.
 * An index that cannot be read meanwhile counts as not there yet.
 */
export async function awaitCheckpoint(
  index: VectorIndex,
  position: number,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  // Short first: the projector usually commits within a few milliseconds of the append.
  for (let delay = 5; ; delay = Math.min(100, delay * 2)) {
    const checkpoint = await index.checkpoint().catch(() => null);
    if (checkpoint !== null && Number(checkpoint) >= position) return true;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await sleep(Math.min(delay, left));
  }
}
