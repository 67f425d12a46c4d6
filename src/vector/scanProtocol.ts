/**
 * Messages between the API thread and the scan threads. A slab's int8 vectors are cut into blocks
 * of `blockSlots` slots, each held by one scan thread (block b by thread b mod threads) in a buffer
 * of its own: usearch's native scan refuses memory shared between threads, and reads a subarray
 * from its buffer's start (its offset is ignored), so a range of one buffer cannot be scanned.
 * Changes reach a thread before any scan sent after them: a port delivers in order.
 */
export type ScanRequest =
  | {
      type: 'sync';
      slab: number;
      dimensions: number;
      blockSlots: number;
      /** Live vectors after this change. */
      size: number;
      /** This thread's blocks, replacing what it held of the slab; or only changed slots with their rows. */
      blocks?: Array<{ block: number; bytes: Int8Array }>;
      slots?: Int32Array;
      rows?: Int8Array;
    }
  /** Scans every block the thread holds; the answer's slots are the slab's, best first. */
  | { type: 'scan'; slab: number; id: number; query: Int8Array; wanted: number }
  | { type: 'forget'; slab: number }
  /** After the scans before it: a thread stopped inside a native scan would abort the process. */
  | { type: 'stop' };

/** The slots of a scan's best candidates, best first; or why it could not run. */
export type ScanReply = { id: number; slots: Int32Array } | { id: number; error: string };
