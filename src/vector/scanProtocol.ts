/**
 * Messages between the API thread and the scan thread. The scan thread keeps a copy of each
 * mirrored slab's int8 vectors (usearch's native scan refuses memory shared between threads), kept
 * up to date by `sync` messages, which a scan sent after them always sees: a port delivers in order.
 */
export type ScanRequest =
  | {
      type: 'sync';
      slab: number;
      dimensions: number;
      /** Live vectors after this change. */
      size: number;
      /** Every live vector, replacing the copy; or only the changed `slots` with their `rows`. */
      whole?: Int8Array;
      slots?: Int32Array;
      rows?: Int8Array;
    }
  | { type: 'scan'; slab: number; id: number; query: Int8Array; wanted: number }
  | { type: 'forget'; slab: number }
  /** After the scans before it: a thread stopped inside a native scan would abort the process. */
  | { type: 'stop' };

/** The slots of a scan's best candidates, best first; or why it could not run. */
export type ScanReply = { id: number; slots: Int32Array } | { id: number; error: string };
