import { createRequire } from 'node:module';
import type * as Usearch from 'usearch';
import type { ScanMirror, SlabChanges } from './scanThread.js';
import type { VectorHit } from './vectorIndex.js';

let usearch: typeof Usearch | null = null;
/** usearch is native code: loaded on the first scan, not by every process that imports this file. */
const loadUsearch = (): typeof Usearch =>
  (usearch ??= createRequire(import.meta.url)('usearch') as typeof Usearch);

/**
 * Candidates the quantised scan hands to exact rescoring, per result wanted. Measured on 100k local
 * vectors: 4× (at least 40) gives recall@10 1.000 against an exact float scan (docs/benchmarks.md).
 */
const OVERSCAN = 4;
const MIN_CANDIDATES = 40;

/**
 * The int8 copies share one scale, so that their inner products rank as the floats' do: stored
 * vectors are unit length (cosine), their components of the order of 1/√dimensions, and the scale
 * leaves room for components eight times that before they clip — measured on 100k local vectors,
 * this scan (usearch's int8 inner product, a quarter cheaper than its cosine) keeps recall@10 at
 * 1.000 after rescoring, as the per-vector scaling with cosine did (docs/benchmarks.md).
 */
function storedScale(dimensions: number): number {
  return 127 / Math.min(1, 8 / Math.sqrt(dimensions));
}

function quantise(vector: Float32Array, into: Int8Array, at: number, scale: number): void {
  for (let i = 0; i < vector.length; i += 1) {
    into[at + i] = Math.max(-127, Math.min(127, Math.round(vector[i]! * scale)));
  }
}

/** A query's own scale does not change its ranking: the largest component becomes ±127. */
function quantisedQuery(query: Float32Array): Int8Array {
  let largest = 1e-12;
  for (const value of query) largest = Math.max(largest, Math.abs(value));
  const into = new Int8Array(query.length);
  quantise(query, into, 0, 127 / largest);
  return into;
}

function dot(a: Float32Array, b: Float32Array, at: number): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += a[i]! * b[at + i]!;
  return sum;
}

/**
 * Every vector of a collection in two contiguous arrays — floats for exact scores, and int8 copies
 * for a SIMD scan that reads a quarter of the bytes (kept by the scan thread instead, when one
 * serves) — with ids, documents, and dense slots (a deleted vector's slot takes the last one's, so a
 * scan never meets a hole).
 */
export class VectorSlab {
  private floats: Float32Array;
  /** The int8 copies this thread scans; none while a scan thread holds them (made again if needed). */
  private bytes: Int8Array | null;
  private readonly slotOf = new Map<string, number>();
  private ids: string[] = [];
  private docs: string[] = [];
  private readonly byDoc = new Map<string, Set<string>>();
  private readonly scale: number;
  /** The scan thread's copy, and what changed since it was last brought up to date. */
  private mirror: ScanMirror | null = null;
  private readonly changed = new Set<number>();
  private copyStale = true;
  private mirroredSize = 0;
  /** Deletions that moved a vector to another slot: a scan that saw the old slots is redone. */
  private moves = 0;

  constructor(readonly dimensions: number) {
    this.scale = storedScale(dimensions);
    this.floats = new Float32Array(dimensions * 1024);
    // Made by the first scan on this thread: a collection the scan thread serves never needs them.
    this.bytes = null;
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.slotOf.has(id);
  }

  docOf(id: string): string | undefined {
    const slot = this.slotOf.get(id);
    return slot === undefined ? undefined : this.docs[slot];
  }

  idsOf(docId: string): string[] {
    return [...(this.byDoc.get(docId) ?? [])];
  }

  set(id: string, docId: string, vector: Float32Array): void {
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.ids.length;
      this.grow(slot + 1);
      this.slotOf.set(id, slot);
      this.ids.push(id);
      this.docs.push(docId);
    } else if (this.docs[slot] !== docId) {
      this.unlink(id, this.docs[slot]!);
      this.docs[slot] = docId;
    }
    let ofDoc = this.byDoc.get(docId);
    if (!ofDoc) this.byDoc.set(docId, (ofDoc = new Set()));
    ofDoc.add(id);
    const at = slot * this.dimensions;
    this.floats.set(vector, at);
    if (this.bytes) this.quantiseSlot(slot, this.bytes, at);
    this.noteChanged(slot);
  }

  delete(id: string): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.unlink(id, this.docs[slot]!);
    this.slotOf.delete(id);
    const last = this.ids.length - 1;
    if (slot !== last) {
      const movedId = this.ids[last]!;
      const size = this.dimensions;
      this.floats.copyWithin(slot * size, last * size, (last + 1) * size);
      this.bytes?.copyWithin(slot * size, last * size, (last + 1) * size);
      this.ids[slot] = movedId;
      this.docs[slot] = this.docs[last]!;
      this.slotOf.set(movedId, slot);
      this.moves += 1;
      this.noteChanged(slot);
    }
    this.ids.pop();
    this.docs.pop();
  }

  /** The `k` nearest by cosine, best first, with exact scores: a quantised scan, then rescoring. */
  nearest(query: Float32Array, k: number): VectorHit[] {
    const size = this.size;
    const wanted = this.candidatesWanted(k);
    if (wanted === 0) return [];
    const { exactSearch, MetricKind } = loadUsearch();
    this.bytes ??= this.quantisedSlots(0, this.floats.length / this.dimensions);
    // One thread: on 100k vectors a second one made a scan slower (thread start-up per call).
    const { keys } = exactSearch(
      this.bytes.subarray(0, size * this.dimensions),
      quantisedQuery(query),
      this.dimensions,
      wanted,
      MetricKind.IP,
      1,
    );
    return this.rescored(query, Array.from(keys, Number), k);
  }

  /**
   * `nearest`, with the scan run by the scan thread on its copy (brought up to date first) while
   * this thread goes on; here only the candidates are rescored. Should a deletion move vectors
   * between slots meanwhile, or the thread fail, the scan is done here instead.
   */
  async nearestInThread(mirror: ScanMirror, query: Float32Array, k: number): Promise<VectorHit[]> {
    if (this.mirror !== mirror) {
      this.mirror = mirror;
      this.copyStale = true;
    }
    const wanted = this.candidatesWanted(k);
    if (wanted === 0) return [];
    // A deletion that moves vectors during a scan makes its slots stale: the scan is redone.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const moves = this.moves;
      let slots: Int32Array;
      try {
        slots = await mirror.scan(this.takeChanges(), quantisedQuery(query), wanted);
      } catch {
        this.copyStale = true;
        return this.nearest(query, k);
      }
      if (this.moves === moves) {
        // The thread's copy serves: this thread's goes (38 MB at 100k vectors of 384 dimensions).
        this.bytes = null;
        return this.rescored(query, Array.from(slots), k);
      }
    }
    return this.nearest(query, k);
  }

  /** Exact scores of the given ids (unknown ones left out), best first, at most `k`. */
  score(query: Float32Array, ids: Iterable<string>, k: number): VectorHit[] {
    const slots: number[] = [];
    for (const id of ids) {
      const slot = this.slotOf.get(id);
      if (slot !== undefined) slots.push(slot);
    }
    return this.rescored(query, slots, k);
  }

  /** A copy of every live vector in slot order with its id: what a graph is built from. */
  snapshot(): { ids: string[]; vectors: Float32Array } {
    return { ids: [...this.ids], vectors: this.floats.slice(0, this.size * this.dimensions) };
  }

  *entries(): IterableIterator<{ id: string; docId: string; vector: Float32Array }> {
    for (let slot = 0; slot < this.ids.length; slot += 1) {
      const at = slot * this.dimensions;
      yield {
        id: this.ids[slot]!,
        docId: this.docs[slot]!,
        vector: this.floats.slice(at, at + this.dimensions),
      };
    }
  }

  /** Empties the slab (a scan thread's copy is the caller's to detach). */
  clear(): void {
    this.mirror = null;
    this.slotOf.clear();
    this.byDoc.clear();
    this.ids = [];
    this.docs = [];
    this.floats = new Float32Array(0);
    this.bytes = null;
  }

  /** Scaled as a unit vector: embedders return those, and one that did not must not clip. */
  private quantiseSlot(slot: number, into: Int8Array, at: number): void {
    const from = slot * this.dimensions;
    const vector = this.floats.subarray(from, from + this.dimensions);
    let norm = 0;
    for (const value of vector) norm += value * value;
    quantise(vector, into, at, this.scale / Math.max(Math.sqrt(norm), 1e-12));
  }

  /** Int8 copies of slots `from` to `to` (those past the live ones stay zero). */
  private quantisedSlots(from: number, to: number): Int8Array {
    const bytes = new Int8Array((to - from) * this.dimensions);
    for (let slot = from; slot < Math.min(to, this.size); slot += 1) {
      this.quantiseSlot(slot, bytes, (slot - from) * this.dimensions);
    }
    return bytes;
  }

  private candidatesWanted(k: number): number {
    if (this.size === 0 || k <= 0) return 0;
    return Math.min(this.size, Math.max(MIN_CANDIDATES, k * OVERSCAN));
  }

  private noteChanged(slot: number): void {
    if (!this.mirror || this.copyStale) return;
    this.changed.add(slot);
    // Past an eighth of the vectors, sending them all is as cheap as listing them.
    if (this.changed.size > this.size / 8 + 1024) {
      this.copyStale = true;
      this.changed.clear();
    }
  }

  /** What the scan thread's copy lacks: copies, as they are transferred to the thread. */
  private takeChanges(): SlabChanges | null {
    const size = this.size;
    const width = this.dimensions;
    if (this.copyStale) {
      this.copyStale = false;
      this.changed.clear();
      this.mirroredSize = size;
      return { size, whole: (from, to) => this.quantisedSlots(from, to) };
    }
    if (this.changed.size === 0 && this.mirroredSize === size) return null;
    const slots = Int32Array.from([...this.changed].filter((slot) => slot < size));
    const rows = new Int8Array(slots.length * width);
    slots.forEach((slot, index) => this.quantiseSlot(slot, rows, index * width));
    this.changed.clear();
    this.mirroredSize = size;
    return { size, slots, rows };
  }

  private rescored(query: Float32Array, candidates: readonly number[], k: number): VectorHit[] {
    // A slot past the end was deleted after the scan saw it.
    const slots = candidates.filter((slot) => slot < this.size);
    return slots
      .map((slot) => ({
        id: this.ids[slot]!,
        docId: this.docs[slot]!,
        score: dot(query, this.floats, slot * this.dimensions),
      }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, k);
  }

  private unlink(id: string, docId: string): void {
    const ofDoc = this.byDoc.get(docId);
    ofDoc?.delete(id);
    if (ofDoc?.size === 0) this.byDoc.delete(docId);
  }

  /** Capacity doubles: new arrays (the scan reads an array from its buffer's start). */
  private grow(slots: number): void {
    const needed = slots * this.dimensions;
    if (needed <= this.floats.length) return;
    const capacity = Math.max(needed, this.floats.length * 2);
    const floats = new Float32Array(capacity);
    floats.set(this.floats.subarray(0, this.size * this.dimensions));
    this.floats = floats;
    if (this.bytes) {
      const bytes = new Int8Array(capacity);
      bytes.set(this.bytes.subarray(0, this.size * this.dimensions));
      this.bytes = bytes;
    }
  }
}
